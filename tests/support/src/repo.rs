//! The end-to-end harness: scratch canonical checkouts under the system temp dir, the real
//! `mosaic-queue` binary run in them with a clean environment, and byte snapshots of every
//! file the queue owns, so a refusal can be checked to have left each one exactly as it was.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// `args` plus `--op OP` and `--by BY`.
pub fn change<'a>(args: &[&'a str], op: &'a str, by: &'a str) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(["--op", op, "--by", by]);
    v
}

/// Runs a change and asserts its receipt is exactly `receipt`.
#[track_caller]
pub fn ok(repo: &Repo, args: &[&str], op: &str, by: &str, receipt: &str) {
    let out = repo.run(&change(args, op, by), &[]);
    assert_eq!(out.ok(), format!("{receipt}\n"));
}

/// The binary under test: the one cargo built for the test that runs (cargo names it in
/// `CARGO_BIN_EXE_mosaic-queue` when it runs a test), else the `mosaic-queue` beside the test
/// binary's `deps/` folder, where cargo puts it.
pub fn bin() -> &'static str {
    static BIN: OnceLock<String> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Ok(path) = std::env::var("CARGO_BIN_EXE_mosaic-queue") {
            return path;
        }
        let me = std::env::current_exe().expect("the test binary knows its path");
        let dir = me
            .parent()
            .and_then(Path::parent)
            .expect("the test binary is in deps/");
        let path = dir.join("mosaic-queue");
        assert!(
            path.is_file(),
            "{} is missing: run the tests with cargo test",
            path.display()
        );
        path.to_string_lossy().into_owned()
    })
}

/// Variables that would make the CLI act for someone or somewhere else; every run clears them
/// unless the test passes them in.
pub(crate) const CLEARED: &[&str] = &[
    "MOSAIC_AGENT_NAME",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "MOSAIC_KILL_AT",
    "MOSAIC_BOOT_ID",
    "MOSAIC_IO_TRACE",
    "MOSAIC_IO_FAIL",
    "MOSAIC_LOCK_WAIT_MS",
    "MOSAIC_NOW_MS",
    "MOSAIC_GITEA_URL",
    "MOSAIC_GITEA_REPO",
    "MOSAIC_GITEA_CREDENTIAL_FILE",
    "MOSAIC_GITEA_DEADLINE_MS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
];

/// The hand-written QUEUE.md the scratch repository starts with: header, markers around a
/// legacy table, footer.
pub const QUEUE_MD: &str = "\
# Queue

Hand-written header: the table below is generated.

<!-- mosaic-queue:begin -->
| # | What | Who |
| 1 | parser | darkwing |
legacy text kept as the legacy view
<!-- mosaic-queue:end -->

Hand-written footer.
";

/// The migration map's table; `source:` is added with the real blob of `QUEUE_MD`.
pub const MAP_TABLE: &str = "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued | | #12, #14 | first |
| 2 | Render | | queued | jason | #20 | |
| 3 | Old thing | sage | parked | | | later |
";

/// The generated body right after genesis.
pub const GENESIS_BODY: &str = "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued |  | #12, #14 | first |
| 2 | Render |  | queued | jason | #20 |  |

**Parked**

- 3 Old thing (owner sage): later
";

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    /// The signal that ended the process, if one did (a kill point's SIGKILL).
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub(crate) fn from(out: Output) -> Out {
        Out {
            // A signal death has no code; -1 never matches an exit code a test expects.
            code: out.status.code().unwrap_or(-1),
            signal: out.status.signal(),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Exit 0 with nothing on stderr; the stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            (self.code, self.stderr.as_str()),
            (0, ""),
            "expected success; stdout: {}",
            self.stdout
        );
        &self.stdout
    }

    /// Exit `code`, nothing on stdout, exactly one line on stderr; that line without its
    /// newline.
    #[track_caller]
    pub fn fails(&self, code: i32) -> &str {
        assert_eq!(
            self.code, code,
            "exit code; stdout: {:?} stderr: {:?}",
            self.stdout, self.stderr
        );
        assert_eq!(self.stdout, "", "a failure prints nothing on stdout");
        let line = self
            .stderr
            .strip_suffix('\n')
            .unwrap_or_else(|| panic!("stderr ends in a newline: {:?}", self.stderr));
        assert!(
            !line.contains('\n'),
            "stderr is one line: {:?}",
            self.stderr
        );
        line
    }
}

/// The queue's files by path: everything under docs/plans and `.git/mosaic-queue.*`.
pub type Snapshot = BTreeMap<String, Vec<u8>>;

/// A scratch directory holding the repository (`root`) and room beside it for copies,
/// worktrees, symlinks and the migration map. Removed when dropped.
pub struct Repo {
    pub base: PathBuf,
    pub root: PathBuf,
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// Runs `git` in `dir` with none of the variables that would point it at another repository.
#[track_caller]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir);
    for var in CLEARED {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("git prints UTF-8")
        .trim_end()
        .to_owned()
}

impl Repo {
    /// A git repository on `main` with QUEUE.md committed and the map written beside it, but
    /// no genesis yet.
    pub fn bare(name: &str) -> Repo {
        Repo::bare_with(name, QUEUE_MD, "QUEUE.md by hand")
    }

    /// Like `bare`, with `queue_md` as the committed QUEUE.md (the map is built from it).
    pub fn bare_with(name: &str, queue_md: &str, message: &str) -> Repo {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!(
            "mosaic-queue-e2e-{name}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        // The canonical root is compared by real path; resolve the temp dir once here.
        let base = base.canonicalize().unwrap();
        let root = base.join("repo");
        std::fs::create_dir_all(root.join("docs/plans")).unwrap();
        let repo = Repo { base, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test Seat"]);
        repo.git(&["config", "user.email", "seat@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.write("docs/plans/QUEUE.md", queue_md);
        repo.git(&["add", "docs/plans/QUEUE.md"]);
        repo.git(&["commit", "-q", "-m", message]);
        let blob = repo.git(&["hash-object", "docs/plans/QUEUE.md"]);
        std::fs::write(
            repo.map_path(),
            format!("# Migration map\n\nsource: docs/plans/QUEUE.md blob {blob}\n\n{MAP_TABLE}"),
        )
        .unwrap();
        repo
    }

    /// A canonical checkout after `genesis --op genesis-0001 --by jason`, committed.
    pub fn new(name: &str) -> Repo {
        let repo = Repo::bare(name);
        let out = repo.genesis();
        let blob = repo.git(&["hash-object", "docs/plans/QUEUE.md"]);
        assert_ne!(blob, "", "QUEUE.md is tracked");
        assert!(
            out.ok()
                .starts_with("ok genesis-0001 rev 1 genesis 3 rows on main from blob "),
            "{}",
            out.stdout
        );
        repo.commit("queue genesis");
        repo
    }

    /// Runs genesis from the map beside the repository.
    pub fn genesis(&self) -> Out {
        let map = self.map_path();
        self.run(
            &[
                "genesis",
                "--map",
                map.to_str().unwrap(),
                "--op",
                "genesis-0001",
                "--by",
                "jason",
            ],
            &[],
        )
    }

    pub fn map_path(&self) -> PathBuf {
        self.base.join("map.md")
    }

    /// Commits the queue's two files as they are.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "docs/plans"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        git(&self.root, args)
    }

    /// Runs the binary at the root with `env` on top of a cleared environment.
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
        run_in(&self.root, args, env)
    }

    /// Commits the pre-commit guard (scripts/git-hooks/pre-commit, running this binary's
    /// `guard`) and installs it in .git/hooks, so doctor finds the checkout healthy.
    pub fn install_guard(&self) {
        use std::os::unix::fs::PermissionsExt;
        const HOOK: &str = "scripts/git-hooks/pre-commit";
        std::fs::create_dir_all(self.path("scripts/git-hooks")).unwrap();
        self.write(HOOK, format!("#!/bin/sh\nexec '{}' guard\n", bin()));
        let exec = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(self.path(HOOK), exec.clone()).unwrap();
        self.git(&["add", HOOK]);
        self.git(&["commit", "-q", "-m", "the guard"]);
        std::fs::create_dir_all(self.path(".git/hooks")).unwrap();
        std::fs::copy(self.path(HOOK), self.path(".git/hooks/pre-commit")).unwrap();
        std::fs::set_permissions(self.path(".git/hooks/pre-commit"), exec).unwrap();
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn read_bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) {
        std::fs::write(self.path(rel), text).unwrap();
    }

    /// queue.json parsed.
    pub fn queue(&self) -> Value {
        serde_json::from_str(&self.read("docs/plans/queue.json")).unwrap()
    }

    /// The witness parsed, `None` when there is none.
    pub fn witness(&self) -> Option<Value> {
        let text = std::fs::read_to_string(self.path(".git/mosaic-queue.head")).ok()?;
        Some(serde_json::from_str(&text).unwrap())
    }

    /// The op id of every log entry, in order.
    pub fn ops(&self) -> Vec<String> {
        self.queue()["log"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["op"].as_str().unwrap().to_owned())
            .collect()
    }

    /// One row of queue.json by id.
    pub fn row(&self, id: u64) -> Value {
        self.queue()["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("row {id} exists"))
            .clone()
    }

    /// The generated body of QUEUE.md (between the marker lines).
    pub fn body(&self) -> String {
        let md = self.read("docs/plans/QUEUE.md");
        let start = md.find("<!-- mosaic-queue:begin -->\n").unwrap() + 28;
        let end = md.find("<!-- mosaic-queue:end -->").unwrap();
        md[start..end].to_owned()
    }

    /// Every file under docs/plans (recursively) and every `.git/mosaic-queue.*` entry.
    pub fn snapshot(&self) -> Snapshot {
        let mut files = Snapshot::new();
        // A checkout with no docs/plans has nothing there to keep.
        if self.path("docs/plans").exists() {
            collect(&self.root, &self.path("docs/plans"), &mut files);
        }
        for entry in std::fs::read_dir(self.path(".git")).unwrap() {
            let entry = entry.unwrap();
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("mosaic-queue.")
            {
                collect(&self.root, &entry.path(), &mut files);
            }
        }
        files
    }

    /// Asserts every queue file is byte for byte as in `before`, and no file came or went.
    #[track_caller]
    pub fn assert_unchanged(&self, before: &Snapshot) {
        assert_same(before, &self.snapshot());
    }

    /// A lock (or gate) file with canonical holder bytes, as the CLI writes them.
    pub fn plant_lock(&self, holder: &Holder) {
        self.write(".git/mosaic-queue.lock", holder.to_canonical());
    }
}

/// Runs the binary in `dir` with `env` on top of a cleared environment.
pub fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    Out::from(command(dir, args, env).output().expect("the binary runs"))
}

/// Runs the binary like `run_in`, but fails the test if it has not finished within `limit`
/// (it is killed first): for inputs that once made a command hang.
#[track_caller]
pub fn run_within(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: std::time::Duration,
) -> Out {
    let child = command(dir, args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => Out::from(out.expect("the binary's output")),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{args:?} did not finish within {limit:?}");
        }
    }
}

/// The command `run_in` runs, for a test that spawns it and acts while it runs.
pub fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    for var in CLEARED {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn collect(root: &Path, path: &Path, files: &mut Snapshot) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    let name = path
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            collect(root, &entry.unwrap().path(), files);
        }
    } else if meta.is_file() {
        files.insert(name, std::fs::read(path).unwrap());
    } else {
        // A FIFO or a symlink a test planted: reading it could block or leave the tree; its
        // kind and target stand for its content.
        let link = std::fs::read_link(path).map(|t| t.display().to_string());
        let text = format!("{:?} {link:?}", meta.file_type());
        files.insert(name, text.into_bytes());
    }
}

/// Compares two snapshots with a readable message naming the files that differ.
#[track_caller]
pub fn assert_same(before: &Snapshot, after: &Snapshot) {
    let names = |s: &Snapshot| s.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(before), names(after), "the same files exist");
    for (name, bytes) in before {
        assert!(
            after[name] == *bytes,
            "{name} changed:\n--- before\n{}\n--- after\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&after[name])
        );
    }
}

/// What a lock file holds. The tests write their own to stand for a holder that is running
/// (this test process), gone, reused, or on another machine.
#[derive(Debug, Clone)]
pub struct Holder {
    pub pid: u32,
    pub start: u64,
    pub host: String,
    pub boot: String,
    pub op: Option<String>,
    pub verb: String,
    pub at: String,
}

impl Holder {
    /// This test process, on this host and boot: a live holder for as long as the test runs.
    pub fn this_process() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            start: start_time(pid).expect("own start time"),
            host: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap()
                .trim()
                .to_owned(),
            boot: std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
                .unwrap()
                .trim()
                .to_owned(),
            op: Some("holder-op-0001".to_owned()),
            verb: "move".to_owned(),
            at: "2026-01-02T03:04:05.678Z".to_owned(),
        }
    }

    /// A process that ran on this host and boot and has exited (and been reaped).
    pub fn dead() -> Holder {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        Holder {
            pid,
            ..Holder::this_process()
        }
    }

    /// The canonical bytes (two-space JSON, schema order, trailing newline).
    pub fn to_canonical(&self) -> String {
        let s = |v: &str| serde_json::to_string(v).unwrap();
        let op = self.op.as_deref().map_or_else(|| "null".to_owned(), s);
        format!(
            "{{\n  \"pid\": {},\n  \"start\": {},\n  \"host\": {},\n  \"boot\": {},\n  \"op\": {op},\n  \"verb\": {},\n  \"at\": {}\n}}\n",
            self.pid,
            self.start,
            s(&self.host),
            s(&self.boot),
            s(&self.verb),
            s(&self.at)
        )
    }
}

/// Field 22 of `/proc/<pid>/stat` (start time in clock ticks), counted after the last `)`.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}
