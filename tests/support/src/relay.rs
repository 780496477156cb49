//! Whole-process figures of one command, for the benches: its wall time from spawn to reaped
//! exit and its peak resident set, measured by a small relay process (the bench re-run with
//! `RELAY_VAR` set) so that the bench's own memory is not counted.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Call first in a bench's `main`: when this run is the relay, it relays and exits.
pub fn relay_if_asked() {
    if let Some(report) = std::env::var_os(RELAY_VAR) {
        relay(&report);
    }
}

/// The relay (this executable re-run) set to run `program`; add its arguments, directory and
/// environment, then `measure` it. A bench that clears the environment keeps `RELAY_VAR`,
/// which `measure` sets.
pub fn relayed(program: &Path) -> Command {
    let me = std::env::current_exe().expect("a bench knows its path");
    let mut cmd = Command::new(me);
    cmd.arg(program);
    cmd
}

/// Set in the environment of a bench re-run as the relay (see `relay`): the file it writes
/// the measured child's figures to.
pub const RELAY_VAR: &str = "MOSAIC_BENCH_RELAY_REPORT";

/// One finished process: its wall time from spawn to reaped exit, its peak resident set, and
/// what it printed.
pub struct Run {
    pub wall: Duration,
    pub max_rss_kib: u64,
    pub stdout: Vec<u8>,
}

/// The relay: runs the program named by its arguments (stdio inherited), reaps it with `wait4`
/// and writes `wall_ns max_rss_kib` to the report file, then exits with the child's status.
/// Why a relay: Linux's `ru_maxrss` of a process counts the address space it had before its
/// exec, which for a child of a bench is the bench's own (its outputs and ids make it
/// bigger than a small tool); a child of this small relay starts from the relay's few pages
/// instead (the `/bin/true` floor prints what is left). The clock runs in the relay, from
/// spawn to reap of the tool, so the relay's own start is never timed.
pub fn relay(report: &std::ffi::OsStr) -> ! {
    let mut argv = std::env::args_os().skip(1);
    let program = argv.next().expect("the relay names a program");
    let mut cmd = Command::new(program);
    cmd.args(argv).env_remove(RELAY_VAR);
    let t = Instant::now();
    let child = cmd.spawn().expect("the command starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain integers, so all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is this process's own child, not yet reaped (std's `Child` never waited
    // on it); both pointers are to live locals of the right types.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t.elapsed();
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    std::fs::write(
        report,
        format!("{} {}", wall.as_nanos(), usage.ru_maxrss.max(0)),
    )
    .expect("write the relay's report");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    std::process::exit(if ok { 0 } else { 1 });
}

/// Runs `cmd` (a relay) to its end and returns the relayed child's figures. stdout is read to
/// its end, as a pipe-reading caller would; stderr goes to a file beside the report.
pub fn measure(mut cmd: Command, scratch: &Path) -> Run {
    let (err_path, report) = (scratch.join("stderr"), scratch.join("report"));
    let err = File::create(&err_path).expect("create the stderr file");
    cmd.env(RELAY_VAR, &report)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(err));
    let out = cmd.output().expect("the relay runs");
    assert!(
        out.status.success(),
        "bench bug: {cmd:?} failed ({}): {}",
        out.status,
        std::fs::read_to_string(&err_path)
            .unwrap_or_default()
            .trim()
    );
    let report = std::fs::read_to_string(&report).expect("the relay reports");
    let mut fields = report
        .split(' ')
        .map(|f| f.parse::<u64>().expect("a number"));
    let (nanos, kib) = (fields.next(), fields.next());
    Run {
        wall: Duration::from_nanos(nanos.expect("wall time")),
        max_rss_kib: kib.expect("max RSS"),
        stdout: out.stdout,
    }
}
