//! A real git remote for the replication tests: a bare repository reached through the suite's
//! own OpenSSH server (`ssh://`, the checkout's `core.sshCommand` pointed at the server's key)
//! or by its plain path, a standby cloned from the host's checkout, and the follower as a
//! process whose stdout lines are collected while it runs.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::repo::{Out, Repo, command, git};
use crate::sshd::{Key, Sshd};

/// The ref the follower pushes to unless told otherwise.
pub const LIVE: &str = "refs/mosaic-queue/live";

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A bare repository and how a checkout reaches it.
pub struct Remote {
    /// The bare repository.
    pub bare: PathBuf,
    /// What `--to` and `--from` are given.
    pub url: String,
    /// The ssh command git runs for the url (ssh remotes only).
    ssh_command: Option<String>,
    scratch: PathBuf,
    // Dropped last: the server outlives nothing that needs it.
    _sshd: Option<(Sshd, Key)>,
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

impl Remote {
    /// A bare repository named `name` behind a real sshd: `ssh://USER@127.0.0.1:PORT/PATH`.
    pub fn ssh(name: &str) -> Remote {
        let sshd = Sshd::start();
        let key = sshd.key("git");
        // No forced command: the key runs git-upload-pack and git-receive-pack as a git
        // host's shell would.
        sshd.authorize(&[format!("restrict {}", key.public)]);
        let mut remote = Remote::path(name);
        remote.url = format!(
            "ssh://{}@127.0.0.1:{}{}",
            sshd.user(),
            sshd.port,
            remote.bare.display()
        );
        remote.ssh_command = Some(format!(
            "ssh -F /dev/null -i '{}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile='{}' -o GlobalKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=20",
            key.private.display(),
            sshd.dir.join("known_hosts").display()
        ));
        remote._sshd = Some((sshd, key));
        remote
    }

    /// A bare repository named `name`, reached by its path.
    pub fn path(name: &str) -> Remote {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let scratch = std::env::temp_dir().join(format!(
            "mosaic-queue-remote-{name}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).unwrap();
        let scratch = scratch.canonicalize().unwrap();
        let bare = scratch.join("remote.git");
        std::fs::create_dir_all(&bare).unwrap();
        git(&bare, &["init", "-q", "--bare"]);
        Remote {
            url: bare.display().to_string(),
            bare,
            ssh_command: None,
            scratch,
            _sshd: None,
        }
    }

    /// Points the git of the checkout at `root` at this remote's server (a no-op for a path
    /// remote).
    pub fn configure(&self, root: &Path) {
        if let Some(ssh) = &self.ssh_command {
            git(root, &["config", "core.sshCommand", ssh]);
        }
    }

    /// The commit `reference` names in the bare repository, `None` when it does not exist.
    pub fn head(&self, reference: &str) -> Option<String> {
        let out = std::process::Command::new("git")
            .args(["rev-parse", "--verify", "-q", reference])
            .current_dir(&self.bare)
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
    }

    /// `git ARGS` in the bare repository.
    pub fn git(&self, args: &[&str]) -> String {
        git(&self.bare, args)
    }

    /// The revision the message of `commit` names (`mosaic-queue rev N`).
    pub fn revision_of(&self, commit: &str) -> u64 {
        let subject = self.git(&["log", "-1", "--format=%s", commit]);
        subject
            .strip_prefix("mosaic-queue rev ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not a replicated commit: {subject}"))
    }
}

/// A standby: a clone of `host`'s checkout on its branch, with the same git identity, reaching
/// `remote` as the host does.
pub fn standby(host: &Repo, remote: &Remote) -> Repo {
    let base = host.base.join("standby");
    std::fs::create_dir_all(&base).unwrap();
    let root = base.join("repo");
    git(&base, &["clone", "-q", host.root.to_str().unwrap(), "repo"]);
    let repo = Repo { base, root };
    repo.git(&["config", "user.name", "Standby Seat"]);
    repo.git(&["config", "user.email", "standby@example.invalid"]);
    remote.configure(&repo.root);
    repo
}

/// This machine's name, as adopt records it (the kernel's node name).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_owned()
}

/// A running `follow`: its process and the lines it printed so far.
pub struct Follower {
    child: Child,
    lines: Lines,
    errors: Lines,
}

/// A pipe's lines so far, each with the moment it was read.
type Lines = Arc<Mutex<Vec<(Instant, String)>>>;

impl Follower {
    /// Starts `follow --to URL` in `repo` with `extra` arguments and `env`, and waits for its
    /// first line (`following: ...`).
    pub fn start(repo: &Repo, remote: &Remote, extra: &[&str], env: &[(&str, &str)]) -> Follower {
        let mut args = vec!["follow", "--to", &remote.url];
        args.extend(extra);
        Follower::spawn(command(&repo.root, &args, env))
    }

    /// Runs `cmd`, a `follow` of any build (a benchmark's), and waits for its first line.
    pub fn spawn(mut cmd: std::process::Command) -> Follower {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the follower runs");
        let lines = collect(child.stdout.take().unwrap());
        let errors = collect(child.stderr.take().unwrap());
        let follower = Follower {
            child,
            lines,
            errors,
        };
        follower.wait_line(|l| l.starts_with("following: "), Duration::from_secs(30));
        follower
    }

    /// Every stdout line so far.
    pub fn lines(&self) -> Vec<String> {
        self.timed_lines().into_iter().map(|(_, l)| l).collect()
    }

    /// Every stdout line so far with the moment it was read (a benchmark's clock).
    pub fn timed_lines(&self) -> Vec<(Instant, String)> {
        self.lines.lock().unwrap().clone()
    }

    /// Every stderr line so far.
    pub fn errors(&self) -> Vec<String> {
        let errors = self.errors.lock().unwrap();
        errors.iter().map(|(_, l)| l.clone()).collect()
    }

    /// The revision of the last `pushed rev N` line, if any.
    pub fn last_pushed(&self) -> Option<u64> {
        self.lines().iter().rev().find_map(|l| pushed_rev(l))
    }

    /// Waits until a stdout line satisfies `pred`; panics past `within`.
    #[track_caller]
    pub fn wait_line(&self, pred: impl Fn(&str) -> bool, within: Duration) -> String {
        let until = Instant::now() + within;
        loop {
            if let Some(l) = self.lines().into_iter().find(|l| pred(l)) {
                return l;
            }
            assert!(
                Instant::now() < until,
                "the follower did not print the line; stdout {:?} stderr {:?}",
                self.lines(),
                self.errors()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until a stderr line satisfies `pred`; panics past `within`.
    #[track_caller]
    pub fn wait_error(&self, pred: impl Fn(&str) -> bool, within: Duration) -> String {
        let until = Instant::now() + within;
        loop {
            if let Some(l) = self.errors().into_iter().find(|l| pred(l)) {
                return l;
            }
            assert!(
                Instant::now() < until,
                "the follower did not say the line; stdout {:?} stderr {:?}",
                self.lines(),
                self.errors()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until it has pushed `revision` or a later one.
    #[track_caller]
    pub fn wait_pushed(&self, revision: u64) {
        self.wait_line(
            |l| pushed_rev(l).is_some_and(|r| r >= revision),
            Duration::from_secs(30),
        );
    }

    /// How it ended, once it ends by itself within `within` (a kill point, a refusal).
    #[track_caller]
    pub fn ended(mut self, within: Duration) -> Out {
        let until = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return self.out(status);
            }
            assert!(
                Instant::now() < until,
                "the follower did not end; stdout {:?} stderr {:?}",
                self.lines(),
                self.errors()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGKILLs it (the host's power cord); what it printed.
    pub fn kill(mut self) -> Out {
        let _ = self.child.kill();
        let status = self.child.wait().unwrap();
        self.out(status)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn out(&self, status: std::process::ExitStatus) -> Out {
        use std::os::unix::process::ExitStatusExt;
        // The readers finish once the pipes close.
        std::thread::sleep(Duration::from_millis(50));
        let join = |v: Vec<String>| v.iter().map(|l| format!("{l}\n")).collect::<String>();
        Out {
            code: status.code().unwrap_or(-1),
            signal: status.signal(),
            stdout: join(self.lines()),
            stderr: join(self.errors()),
        }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `pushed rev N (commit ...)`: N.
pub fn pushed_rev(line: &str) -> Option<u64> {
    line.strip_prefix("pushed rev ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

fn collect(pipe: impl std::io::Read + Send + 'static) -> Lines {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            kept.lock().unwrap().push((Instant::now(), line));
        }
    });
    lines
}

/// A host: a committed genesis reaching `remote`, its follower running, and `replication
/// required` acknowledged (rev 2, which the follower pushed).
pub fn required_host(name: &str, remote: &Remote) -> (Repo, Follower) {
    let host = Repo::new(name);
    remote.configure(&host.root);
    let follower = Follower::start(&host, remote, &[], &[]);
    let out = host.run(
        &[
            "replication",
            "required",
            "--op",
            "lead-replication-1",
            "--by",
            "lead",
        ],
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok lead-replication-1 rev 2 replication required\n"
    );
    (host, follower)
}

/// `required_host`, then one note by darkwing acknowledged at rev 3 with the follower running.
pub fn required_noted(name: &str, remote: &Remote) -> (Repo, Follower) {
    let (host, follower) = required_host(name, remote);
    let out = host.run(
        &[
            "note",
            "1",
            "pushed",
            "--op",
            "darkwing-note-2",
            "--by",
            "darkwing",
        ],
        &[],
    );
    assert_eq!(out.ok(), "ok darkwing-note-2 rev 3 note 1\n");
    (host, follower)
}

/// Asserts that no op is in `repo`'s log twice.
#[track_caller]
pub fn assert_no_op_twice(repo: &Repo) {
    let ops = repo.ops();
    let mut distinct = ops.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), ops.len(), "no op twice: {ops:?}");
}

/// `adopt --from` the remote in `standby` by the lead (op `lead-adopt-1`), with `extra`
/// arguments after it, within `wait`.
pub fn adopt_within(standby: &Repo, remote: &Remote, extra: &[&str], wait: Duration) -> Out {
    let mut args = vec![
        "adopt",
        "--from",
        &remote.url,
        "--op",
        "lead-adopt-1",
        "--by",
        "lead",
    ];
    args.extend_from_slice(extra);
    crate::run_within(&standby.root, &args, &[], wait)
}

/// The two lines a fresh adopt of `revision` (commit `commit`) of `host` prints in `standby`.
pub fn adopt_lines(
    host: &Repo,
    standby: &Repo,
    remote: &Remote,
    op: &str,
    revision: u64,
    commit: &str,
) -> String {
    format!(
        "ok {op} rev {} adopt rev {revision} from {} (commit {}) to {}:{}\nadopted rev {revision} of {} from {} {LIVE}; the old host's last push was rev {revision}, and under replication required it acknowledged nothing past rev {revision}\n",
        revision + 1,
        host.root.display(),
        &commit[..12],
        host_name(),
        standby.root.display(),
        host.root.display(),
        remote.url,
    )
}

/// The line a fenced host refuses each change with, after `adopt` at `revision` (commit
/// `commit`) of `standby`; `last` is the old host's last revision on the ref.
pub fn fence_line(
    standby: &Repo,
    remote: &Remote,
    revision: u64,
    commit: &str,
    last: u64,
) -> String {
    format!(
        "this queue was adopted at {}:{} (rev {revision}, commit {} on {} {LIVE}): no change is made here; run it in that checkout (`mosaic-queue doctor` here lists the ops this host wrote after its last push, rev {last})",
        host_name(),
        standby.root.display(),
        &commit[..12],
        remote.url
    )
}
