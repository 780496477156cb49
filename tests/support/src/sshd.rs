//! A real OpenSSH server for the end-to-end tests: Debian's `sshd` on a free local port with a
//! throwaway host key and an `authorized_keys` the test writes, run in the foreground as this
//! user, and the `ssh` client pointed at it with a key of its own and a known_hosts holding the
//! host key. Where sshd is missing or cannot start, the test fails saying so: it never skips.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::repo::Out;

/// How long sshd may take to listen.
const START_WITHIN: Duration = Duration::from_secs(20);

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A running sshd and the directory holding its keys and files; stopped and removed on drop.
pub struct Sshd {
    pub dir: PathBuf,
    pub port: u16,
    user: String,
    child: Child,
    /// What sshd logged, for a failing test's message.
    log: Arc<Mutex<String>>,
}

/// A client key: its private file, and its public line for `authorized_keys`.
pub struct Key {
    pub private: PathBuf,
    pub public: String,
}

/// The sshd binary: Debian's, else the first on PATH; an absolute path, since sshd re-executes
/// itself for each connection.
fn sshd_binary() -> PathBuf {
    let debian = PathBuf::from("/usr/sbin/sshd");
    if debian.is_file() {
        return debian;
    }
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("sshd"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "sshd is not installed: install OpenSSH's server (Debian: apt-get install -y openssh-server; tests/all.sh does it)"
        )
    })
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

/// A new ed25519 key pair without a passphrase at `path` (and `path.pub`).
fn keygen(path: &Path) -> String {
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f"])
        .arg(path));
    std::fs::read_to_string(path.with_extension("pub"))
        .unwrap()
        .trim_end()
        .to_owned()
}

/// sshd run by root separates privileges and needs its empty directory, which a machine whose
/// sshd never ran as a service lacks.
fn privilege_separation_dir() {
    if run(Command::new("id").arg("-u")) == "0" && !Path::new("/run/sshd").is_dir() {
        std::fs::create_dir_all("/run/sshd").expect("root can create /run/sshd for sshd");
    }
}

impl Sshd {
    /// Starts sshd with an empty `authorized_keys`; `authorize` fills it (sshd reads it at
    /// each login).
    pub fn start() -> Sshd {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mosaic-sshd-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dir = dir.canonicalize().unwrap();
        let host = keygen(&dir.join("host_key"));
        std::fs::write(dir.join("authorized_keys"), "").unwrap();
        privilege_separation_dir();
        let user = run(Command::new("id").arg("-un"));
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match Sshd::spawn(&dir, port) {
                Ok((child, log)) => {
                    let known = format!("[127.0.0.1]:{port} {host}\n");
                    std::fs::write(dir.join("known_hosts"), known).unwrap();
                    return Sshd {
                        dir,
                        port,
                        user,
                        child,
                        log,
                    };
                }
                Err(why) => last = why,
            }
        }
        panic!("sshd did not start: {last}");
    }

    /// sshd on `port` in the foreground, logging to stderr; once it listens.
    fn spawn(dir: &Path, port: u16) -> Result<(Child, Arc<Mutex<String>>), String> {
        let config = dir.join("sshd_config");
        std::fs::write(&config, config_text(dir, port)).unwrap();
        let mut child = Command::new(sshd_binary())
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run sshd: {e}"))?;
        let (log, listening) = follow(child.stderr.take().unwrap());
        match listening.recv_timeout(START_WITHIN) {
            Ok(true) => Ok((child, log)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                let text = log.lock().unwrap().clone();
                Err(text)
            }
        }
    }

    /// Writes `lines` as the whole `authorized_keys`.
    pub fn authorize(&self, lines: &[String]) {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(self.dir.join("authorized_keys"), text).unwrap();
    }

    /// A new client key named `name`.
    pub fn key(&self, name: &str) -> Key {
        let private = self.dir.join(format!("key-{name}"));
        let public = keygen(&private);
        Key { private, public }
    }

    /// `ssh -T` to this server with `key`, the options a test adds, and `remote` as the
    /// command (none: no command, as an MCP client starts it).
    pub fn ssh(&self, key: &Key, options: &[&str], remote: Option<&str>) -> Command {
        let mut cmd = Command::new("ssh");
        cmd.args(["-F", "/dev/null", "-i"]).arg(&key.private);
        let known = format!(
            "UserKnownHostsFile={}",
            self.dir.join("known_hosts").display()
        );
        for option in [
            "IdentitiesOnly=yes",
            "BatchMode=yes",
            "StrictHostKeyChecking=yes",
            &known,
            "GlobalKnownHostsFile=/dev/null",
            "LogLevel=ERROR",
            "ConnectTimeout=20",
        ] {
            cmd.args(["-o", option]);
        }
        for option in options {
            cmd.args(["-o", option]);
        }
        cmd.args(["-p", &self.port.to_string(), "-T"])
            .arg(format!("{}@127.0.0.1", self.user));
        cmd.args(remote);
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Runs `remote` over ssh with `key`; what it printed and its exit code.
    pub fn run(&self, key: &Key, options: &[&str], remote: &str) -> Out {
        let out = self.ssh(key, options, Some(remote)).output().unwrap();
        Out::from(out)
    }

    /// The listening sshd's process id: each connection's own sshd process is its child.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The account the clients log in as (this user).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// What sshd logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A port nothing listens on now (sshd may still lose it to a race: `start` tries again).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The server's configuration: keys only, this directory's files, no PAM, and every
/// variable a client may send accepted, so the tests see the gate drop them itself.
fn config_text(dir: &Path, port: u16) -> String {
    format!(
        "Port {port}\n\
         ListenAddress 127.0.0.1\n\
         HostKey {dir}/host_key\n\
         AuthorizedKeysFile {dir}/authorized_keys\n\
         PidFile none\n\
         UsePAM no\n\
         StrictModes no\n\
         PubkeyAuthentication yes\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         PermitRootLogin prohibit-password\n\
         AcceptEnv MOSAIC_* GIT_* LANG LC_* HTTPS_PROXY https_proxy\n",
        dir = dir.display()
    )
}

/// Reads sshd's stderr into a log; the receiver learns whether it came to listen.
fn follow(stderr: std::process::ChildStderr) -> (Arc<Mutex<String>>, Receiver<bool>) {
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = channel();
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        let mut told = false;
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if !told && line.starts_with("Server listening on") {
                told = tx.send(true).is_ok();
            }
            let mut log = kept.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
        if !told {
            let _ = tx.send(false);
        }
    });
    (log, rx)
}
