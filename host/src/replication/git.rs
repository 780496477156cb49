//! git against a remote, bounded: `fetch`, `push` and `ls-remote` run in a process group of
//! their own (so a Ctrl-C at the follower's terminal does not cut a push short, and a deadline
//! ends git and the ssh it started together), with no terminal to prompt on, none of the
//! queue's Gitea variables in their environment, and their output read up to a cap. git's own
//! credentials (an ssh key, a credential helper) are the only ones it uses.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};

/// The most of git's stdout or stderr kept: a remote's messages are short, and a hostile one
/// must not fill memory.
const OUTPUT_CAP: u64 = 1 << 20;

/// How a bounded git run ended.
#[derive(Debug)]
pub enum Ran {
    /// git exited: its status, stdout and stderr (each up to the cap).
    Exited {
        status: ExitStatus,
        stdout: Vec<u8>,
        stderr: String,
    },
    /// The deadline passed first; git and everything it started were killed.
    TimedOut,
    /// git could not be started.
    NotStarted(String),
}

impl Ran {
    /// stdout on exit 0; otherwise why not, on one line.
    pub fn ok(self, what: &str) -> Result<Vec<u8>, RemoteFailure> {
        match self {
            Ran::Exited {
                status,
                stdout,
                stderr: _,
            } if status.success() => Ok(stdout),
            Ran::Exited { stderr, .. } => Err(RemoteFailure::Refused(format!(
                "git {what} failed: {}",
                one_line(&stderr)
            ))),
            Ran::TimedOut => Err(RemoteFailure::Hung(format!("git {what}"))),
            Ran::NotStarted(why) => Err(RemoteFailure::NotStarted(why)),
        }
    }
}

/// Why a remote operation did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteFailure {
    /// git answered with a failure (the remote refused, the ref is missing, no route): its line.
    Refused(String),
    /// No answer before the deadline: what was running.
    Hung(String),
    /// git could not be started.
    NotStarted(String),
}

impl std::fmt::Display for RemoteFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemoteFailure::Refused(line) => f.write_str(line),
            RemoteFailure::Hung(what) => write!(f, "{what} got no answer before its deadline"),
            RemoteFailure::NotStarted(why) => write!(f, "cannot run git: {why}"),
        }
    }
}

/// git's stderr on one line, without the progress meter's carriage returns.
pub fn one_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("; ")
}

/// git's stderr on one line without its progress meter (`--progress`: the `Counting objects:`
/// and `Writing objects:` lines, `Delta compression`, `Total`), which would bury the line that
/// says why a push failed.
pub fn reason(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .split(['\n', '\r'])
        .filter(|l| {
            let l = l.trim();
            let meter = l
                .split_once(':')
                .is_some_and(|(what, _)| what.ends_with(" objects"));
            !(meter || l.starts_with("Delta compression using") || l.starts_with("Total "))
        })
        .collect();
    one_line(&kept.join("\n"))
}

/// Runs `git ARGS` in `dir` against a remote within `deadline`.
pub fn run(dir: &Path, args: &[&str], deadline: Duration) -> Ran {
    let mut cmd = remote_command(dir, args);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return Ran::NotStarted(e.to_string()),
    };
    let pid = child.id();
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let (tx, rx) = mpsc::channel();
    // The waiter reads both pipes to their end (each in its own thread, so neither fills)
    // and then reaps git; the caller waits for it no longer than the deadline.
    std::thread::spawn(move || {
        let out = std::thread::spawn(move || capped(stdout));
        let err = capped(stderr);
        let out = out.join().unwrap_or_default();
        let status = child.wait();
        let _ = tx.send((status, out, err));
    });
    match rx.recv_timeout(deadline) {
        Ok((Ok(status), stdout, stderr)) => Ran::Exited {
            status,
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        },
        Ok((Err(e), _, _)) => Ran::NotStarted(e.to_string()),
        Err(_) => {
            kill_group(pid);
            // Reaped by the waiter once the group is gone; a child that ignores SIGKILL does
            // not exist, so this returns.
            let _ = rx.recv_timeout(Duration::from_secs(5));
            Ran::TimedOut
        }
    }
}

/// `git ARGS` for a remote: the host's one way of starting git (`crate::git::reading`), its
/// own process group, no stdin, no prompt, the C locale (its progress lines are read), and
/// none of the queue's Gitea variables.
fn remote_command(dir: &Path, args: &[&str]) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = crate::git::reading(dir, args);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MOSAIC_GITEA_") {
            cmd.env_remove(&name);
        }
    }
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    cmd
}

/// Reads a pipe to its end, keeping at most `OUTPUT_CAP` bytes.
fn capped(pipe: Option<impl Read>) -> Vec<u8> {
    let mut kept = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = (&mut pipe).take(OUTPUT_CAP).read_to_end(&mut kept);
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
    }
    kept
}

fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_push_is_said_without_its_progress_meter() {
        let stderr = "Enumerating objects: 11, done.\nCounting objects:   9% (1/11)\rCounting objects: 100% (11/11), done.\nDelta compression using up to 2 threads\nCompressing objects: 100% (4/4), done.\nWriting objects: 100% (6/6), 728 bytes | 121.00 KiB/s, done.\nTotal 6 (delta 2), reused 0 (delta 0), pack-reused 0 (from 0)\nremote: no pushes today\nerror: failed to push some refs to 'ssh://h/r.git'\n";
        assert_eq!(
            reason(stderr),
            "remote: no pushes today; error: failed to push some refs to 'ssh://h/r.git'"
        );
    }
}
