//! What docs/remote.md tells a new remote seat, held true behind a real sshd: the forced
//! command names the binary by its absolute path and quotes a `--root` holding spaces as `sh`
//! does; the seat's `~/.ssh/config` from the docs (connection sharing included) works; a key
//! the host does not list is refused only when ssh offers it alone (`-i` adds to the config's
//! `IdentityFile`); and a revoked key's next login is refused, while a shared connection
//! opened before keeps running commands until it ends.

use std::path::{Path, PathBuf};
use std::process::Command;

use support::sshd::{Key, Sshd};
use support::{Out, Repo, bin};

/// The docs' forced command for `seat` on `root`: the binary by its absolute path, the root in
/// single quotes as `sh` reads them.
fn line(seat: &str, root: &Path, key: &Key) -> String {
    format!(
        "restrict,command=\"{} gate --seat {seat} --root '{}'\" {}",
        bin(),
        root.display(),
        key.public
    )
}

/// The docs' `~/.ssh/config` for `key`, pointed at the local sshd: its host, user, key and
/// connection sharing, with the test's known_hosts and no prompt.
fn seat_config(sshd: &Sshd, key: &Key) -> PathBuf {
    let path = sshd.dir.join("seat_config");
    let text = format!(
        "Host queue-host\n\
         \x20 HostName 127.0.0.1\n\
         \x20 Port {port}\n\
         \x20 User {user}\n\
         \x20 IdentityFile {key}\n\
         \x20 IdentitiesOnly yes\n\
         \x20 ControlMaster auto\n\
         \x20 ControlPath {dir}/cm-%C\n\
         \x20 ControlPersist 10m\n\
         \x20 UserKnownHostsFile {dir}/known_hosts\n\
         \x20 GlobalKnownHostsFile /dev/null\n\
         \x20 StrictHostKeyChecking yes\n\
         \x20 BatchMode yes\n\
         \x20 LogLevel ERROR\n",
        port = sshd.port,
        user = sshd.user(),
        key = key.private.display(),
        dir = sshd.dir.display(),
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn to_out(o: std::process::Output) -> Out {
    Out {
        code: o.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

/// `ssh -F CONFIG [extra...] queue-host REMOTE`, as the seat types it.
fn ssh(config: &Path, extra: &[&str], remote: &str) -> Out {
    let ran = Command::new("ssh")
        .arg("-F")
        .arg(config)
        .args(extra)
        .args(["-T", "queue-host", remote])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    to_out(ran)
}

/// Ends the seat's shared connection from its side (`ssh -O exit`).
fn stop_sharing(config: &Path) {
    let out = Command::new("ssh")
        .arg("-F")
        .arg(config)
        .args(["-O", "exit", "queue-host"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// The processes whose parent is `parent`, from /proc.
fn children(parent: u32) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: the fields after the last `)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            pids.push(pid);
        }
    }
    pids
}

/// Kills every connection's own sshd process (the listener's children), as the host ends a
/// revoked key's open connection; waits until they are gone.
fn kill_connections(sshd: &Sshd) {
    let pids = children(sshd.pid());
    assert!(
        !pids.is_empty(),
        "the shared connection has its sshd process"
    );
    for pid in &pids {
        let pid = rustix::process::Pid::from_raw(*pid).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    }
    support::watch::until("the connection ends", || children(sshd.pid()).is_empty());
}

#[test]
fn the_docs_set_up_works_for_a_root_with_spaces_and_revokes_as_they_say() {
    let repo = Repo::new("ssh docs root with spaces");
    assert!(repo.root.display().to_string().contains(' '));
    let sshd = Sshd::start();
    let key = sshd.key("darkwing");
    sshd.authorize(&[line("darkwing", &repo.root, &key)]);
    let config = seat_config(&sshd, &key);
    let local = repo.run(&["list", "--json"], &[]);
    let first = ssh(&config, &[], "list --json");
    assert_eq!(first.ok(), local.ok(), "sshd: {}", sshd.log());
    // The next call rides the shared connection.
    assert_eq!(ssh(&config, &[], "list --json").ok(), local.stdout);
    stop_sharing(&config);

    // A key the host does not list: with the config, ssh offers its IdentityFile too and gets
    // in; offered alone, it is refused.
    let stranger = sshd.key("stranger");
    let stranger_path = stranger.private.to_str().unwrap();
    let with_config = ssh(
        &config,
        &["-o", "ControlMaster=no", "-i", stranger_path],
        "list --json",
    );
    assert_eq!(with_config.ok(), local.stdout);
    let alone = sshd.run(&stranger, &[], "list --json");
    assert_eq!(alone.code, 255, "{alone:?}");
    assert!(
        alone.stderr.contains("Permission denied (publickey)"),
        "{alone:?}"
    );
    assert_eq!(alone.stdout, "");

    // Revoked: a connection shared before the line went keeps answering until it ends; the
    // host ends it by killing its sshd process, and the key's next login is refused.
    assert_eq!(ssh(&config, &[], "list --json").ok(), local.stdout);
    sshd.authorize(&[]);
    assert_eq!(ssh(&config, &[], "list --json").ok(), local.stdout);
    kill_connections(&sshd);
    let refused = ssh(&config, &[], "list --json");
    assert_eq!(refused.code, 255, "{refused:?}");
    assert!(
        refused.stderr.contains("Permission denied (publickey)"),
        "{refused:?}"
    );
}

#[test]
fn the_first_connection_needs_the_host_key_accepted() {
    let repo = Repo::new("ssh-first");
    let sshd = Sshd::start();
    let key = sshd.key("darkwing");
    sshd.authorize(&[line("darkwing", &repo.root, &key)]);
    // No terminal to answer in, as an MCP client starts ssh: refused before any login.
    let empty = sshd.dir.join("empty_known_hosts");
    std::fs::write(&empty, "").unwrap();
    let unknown = format!("UserKnownHostsFile={}", empty.display());
    let port = sshd.port.to_string();
    let out = Command::new("ssh")
        .args(["-F", "/dev/null", "-i"])
        .arg(&key.private)
        .args([
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "BatchMode=yes",
            "-o",
            &unknown,
        ])
        .args([
            "-o",
            "GlobalKnownHostsFile=/dev/null",
            "-o",
            "StrictHostKeyChecking=ask",
        ])
        .args(["-p", &port, "-T"])
        .arg(format!("{}@127.0.0.1", sshd.user()))
        .arg("prime")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = to_out(out);
    assert_eq!(out.code, 255, "{out:?}");
    assert!(
        out.stderr.contains("Host key verification failed."),
        "{out:?}"
    );
    assert_eq!(out.stdout, "");
    // With the host key kept (what answering `yes` once does), the same command answers.
    let out = sshd.run(&key, &[], "prime");
    assert!(
        out.ok()
            .starts_with("mosaic-queue prime: you are darkwing, a seat."),
        "{}",
        out.stdout
    );
}
