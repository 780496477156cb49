//! bench-ssh: what one verb costs a remote seat, in one run, behind a local OpenSSH server whose
//! `authorized_keys` line runs the gate (the test suite's sshd, `support::sshd`): `list --json`
//! as one `ssh` call each time (a new connection and handshake per call), the same with
//! OpenSSH's connection sharing (`ControlMaster auto`, `ControlPersist`: the first call opens
//! the shared connection, the ones after ride on it), and the `read` tool inside one warm MCP
//! session started through the same ssh. Medians and ratios. Run: `cargo build --release -p
//! mosaic-queue`, then `cargo run -p mosaic-queue --example bench-ssh` (the driver only starts
//! processes and reads their output, so its own profile does not matter; the gate is the
//! release binary, or the build `MOSAIC_QUEUE_BIN` names). Needs sshd (Debian's
//! openssh-server) and ssh.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use support::bench::{BENCH_QUEUE_MD, Scratch, queued_checkout, release_binary};
use support::mcp::Mcp;
use support::sshd::{Key, Sshd};

/// Rows in the queue (its list is one answer of a few KiB), and calls of each kind.
const ROWS: u64 = 10;
const CALLS: usize = 30;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One `ssh` call of `list --json` with `options`; its time. It must succeed and print the
/// list, else the figure would time a refusal.
fn one_call(sshd: &Sshd, key: &Key, options: &[&str]) -> Duration {
    let t = Instant::now();
    let out = sshd.run(key, options, "list --json");
    let elapsed = t.elapsed();
    let listed = serde_json::from_str::<serde_json::Value>(&out.stdout)
        .is_ok_and(|doc| doc["revision"].is_u64() && doc["rows"].is_array());
    assert!(
        out.code == 0 && listed,
        "bench bug: ssh list failed ({}): {}; sshd: {}",
        out.code,
        out.stderr.trim(),
        sshd.log()
    );
    elapsed
}

/// The options that share one connection among calls, with its socket under `dir`.
fn sharing(dir: &Path) -> Vec<String> {
    vec![
        String::from("ControlMaster=auto"),
        format!("ControlPath={}/cm-%C", dir.display()),
        String::from("ControlPersist=60"),
    ]
}

/// Ends the shared connection's master process (`ssh -O exit`, the same options and
/// destination), so the bench leaves nothing running.
fn stop_master(sshd: &Sshd, key: &Key, options: &[&str]) {
    let cmd = sshd.ssh(key, options, None);
    let mut args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let destination = args.pop().expect("ssh names its destination last");
    let stopped = Command::new(cmd.get_program())
        .args(args)
        .args(["-O", "exit"])
        .arg(destination)
        .output()
        .expect("ssh runs");
    assert!(
        stopped.status.success(),
        "bench bug: the shared connection did not end: {}",
        String::from_utf8_lossy(&stopped.stderr).trim()
    );
}

fn main() {
    let bin = release_binary("bench-ssh");
    let scratch = Scratch::new("bench-ssh");
    let root = queued_checkout(&bin, &scratch.0, ROWS, BENCH_QUEUE_MD);
    let sshd = Sshd::start();
    let key = sshd.key("darkwing");
    sshd.authorize(&[format!(
        "restrict,command=\"'{}' gate --seat darkwing --root '{}'\" {}",
        bin.display(),
        root.display(),
        key.public
    )]);

    let plain: Vec<Duration> = (0..CALLS).map(|_| one_call(&sshd, &key, &[])).collect();

    let shared_opts = sharing(&scratch.0);
    let shared_refs: Vec<&str> = shared_opts.iter().map(String::as_str).collect();
    // The first call opens the shared connection: timed apart, as a seat's first call is.
    let opening = one_call(&sshd, &key, &shared_refs);
    let shared: Vec<Duration> = (0..CALLS)
        .map(|_| one_call(&sshd, &key, &shared_refs))
        .collect();
    stop_master(&sshd, &key, &shared_refs);

    let mut mcp = Mcp::spawn_command(sshd.ssh(&key, &[], None));
    let t = Instant::now();
    mcp.handshake();
    let session_start = t.elapsed();
    let served: Vec<Duration> = (0..CALLS)
        .map(|_| {
            let t = Instant::now();
            let a = mcp.call("read", json!({"what": "list"}));
            let elapsed = t.elapsed();
            assert!(!a.is_error, "bench bug: read failed: {a:?}");
            elapsed
        })
        .collect();
    assert_eq!(mcp.close().code(), Some(0));

    let (plain, shared, served) = (median(plain), median(shared), median(served));
    println!(
        "bench-ssh: {} behind a local sshd on a queue of {ROWS} rows, {CALLS} calls each",
        bin.display()
    );
    println!(
        "   one ssh call per verb (new connection each): median {:.1} ms",
        ms(plain)
    );
    println!(
        "   with ControlMaster auto + ControlPersist: first call {:.1} ms, then median {:.1} ms (ratio to a new connection {:.3})",
        ms(opening),
        ms(shared),
        shared.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "   inside one MCP session over ssh: start and handshake {:.1} ms, then `read` median {:.2} ms (ratio to a new connection {:.3}, to a shared one {:.3})",
        ms(session_start),
        ms(served),
        served.as_secs_f64() / plain.as_secs_f64(),
        served.as_secs_f64() / shared.as_secs_f64()
    );
}
