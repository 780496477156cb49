//! Facts about processes and this machine that classify a lock holder: does the pid run, when
//! did it start, which host and boot wrote the lock. Behind a trait so tests fake every class.

use std::io;

use rustix::io::Errno;
use rustix::process::{Pid, test_kill_process};

pub(super) const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

/// Facts about processes and this machine, behind a trait so tests can fake every class.
pub trait Probe {
    /// This process's pid.
    fn own_pid(&self) -> u32;
    /// Whether `pid` is a process that still runs.
    fn running(&self, pid: u32) -> bool;
    /// The start time of `pid` in clock ticks since boot; `None` when it cannot be read.
    fn start_time(&self, pid: u32) -> Option<u64>;
    /// The node name.
    fn host(&self) -> String;
    /// The kernel's boot id, which changes at every boot.
    fn boot_id(&self) -> io::Result<String>;
}

/// The real machine: `kill(pid, 0)`, `/proc` and `uname`.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealProbe;

impl Probe for RealProbe {
    fn own_pid(&self) -> u32 {
        std::process::id()
    }

    fn running(&self, pid: u32) -> bool {
        let Some(raw) = i32::try_from(pid)
            .ok()
            .filter(|&p| p > 0)
            .and_then(Pid::from_raw)
        else {
            return false;
        };
        match test_kill_process(raw) {
            Err(e) if e == Errno::SRCH => false,
            // EPERM also means the process exists. A zombie has exited and only waits for its
            // parent to reap it, so it holds nothing: count it as gone.
            _ => !matches!(read_stat(pid), Some((state, _)) if state == 'Z' || state == 'X'),
        }
    }

    fn start_time(&self, pid: u32) -> Option<u64> {
        read_stat(pid).map(|(_, start)| start)
    }

    fn host(&self) -> String {
        rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned()
    }

    fn boot_id(&self) -> io::Result<String> {
        if let Some(boot) = crate::io::seams::boot_id() {
            return Ok(boot);
        }
        Ok(std::fs::read_to_string(BOOT_ID)?.trim().to_owned())
    }
}

fn read_stat(pid: u32) -> Option<(char, u64)> {
    // The command name may be any bytes, so no UTF-8 requirement on the whole line.
    let bytes = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&String::from_utf8_lossy(&bytes))
}

/// The state (field 3) and start time (field 22) of a `/proc/<pid>/stat` line. Field 2, the
/// command name, is in parentheses and may hold spaces and ')', so counting starts after the
/// last ')'.
pub(super) fn parse_stat(line: &str) -> Option<(char, u64)> {
    let rest = &line[line.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // After field 3, `nth(18)` skips fields 4 to 21 and yields field 22.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}
