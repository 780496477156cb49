//! Runs the hostile cases: one scratch checkout per worker thread, restored from its pristine
//! copy after a case touched it; each case's child under a deadline and a data-size limit, its
//! output in files, its files compared byte for byte (FIFOs, devices and huge sparse files by
//! kind and size, never by opening them).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::cases::{After, Arg, Case, Gitea, Setup, Stderr};
use super::secrets;
use support::fake_gitea::FakeGitea;
use support::{Repo, command, ok};

/// Worker threads: the cases are mostly process start-up, so a few more than the cores.
const WORKERS: usize = 4;

/// A case that has not finished by then hangs; its child is killed and the case fails. Far
/// above any case's real time, so a loaded machine does not fail a correct case.
fn deadline() -> Duration {
    let secs = std::env::var("MOSAIC_HOSTILE_DEADLINE_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// The data-size limit of every child (heap and anonymous mappings).
const MEMORY: u64 = 1 << 30;

/// Files larger than this are compared by size, not read (the sparse giants).
const READ_LIMIT: u64 = 1 << 20;

/// The Gitea logins with token files beside each checkout.
pub const LOGINS: &[&str] = &["darkwing", "flicker", "pixel", "jarvis", "sage", "jason"];

/// Every name a case can give a file: `{base}` is the worker's scratch directory.
fn expand(text: &str, base: &Path) -> String {
    text.replace("{base}", base.to_str().unwrap())
}

fn os(arg: &Arg, base: &Path) -> OsString {
    match arg {
        Arg::S(s) => OsString::from(expand(s, base)),
        Arg::B(b) => OsString::from_vec(b.clone()),
    }
}

struct Worker {
    repo: Repo,
    pristine: PathBuf,
    dirty: bool,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.pristine);
    }
}

/// `cp -a`, which keeps modes, links and sparse files as they are.
fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "cp -a {} {}",
        from.display(),
        to.display()
    );
}

impl Worker {
    /// A checkout after genesis with row 1 (owner darkwing, issues #12 and #14, reviewers
    /// flicker and pixel) in progress; beside it a snapshot, a manifest, a copy of queue.json
    /// and a token file per login.
    fn new(n: usize) -> Worker {
        let repo = Repo::new(&format!("hostile-{n}"));
        ok(
            &repo,
            &["set", "1", "reviewers", "flicker,pixel"],
            "sage-1-reviewers",
            "sage",
            "ok sage-1-reviewers rev 2 set 1 reviewers",
        );
        ok(
            &repo,
            &["move", "1", "in-progress"],
            "darkwing-1-start",
            "darkwing",
            "ok darkwing-1-start rev 3 move 1 queued -> in-progress",
        );
        let snap = repo.base.join("snap");
        let out = repo.run(&["snapshot", "--out", snap.to_str().unwrap()], &[]);
        assert_eq!(out.code, 0, "snapshot: {}", out.stderr);
        std::fs::write(
            repo.base.join("cand.txt"),
            format!("{} src/lib.rs\n", "a".repeat(64)),
        )
        .unwrap();
        std::fs::copy(
            repo.path("docs/plans/queue.json"),
            repo.base.join("base.json"),
        )
        .unwrap();
        for login in LOGINS {
            let path = token_file(&repo.base, login);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, format!("{}\n", token(login))).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let pristine = repo.base.with_extension("pristine");
        let _ = std::fs::remove_dir_all(&pristine);
        copy_tree(&repo.base, &pristine);
        Worker {
            repo,
            pristine,
            dirty: false,
        }
    }

    fn restore(&mut self) {
        if !self.dirty {
            return;
        }
        std::fs::remove_dir_all(&self.repo.base).unwrap();
        copy_tree(&self.pristine, &self.repo.base);
        self.dirty = false;
    }
}

/// A token only `login` has.
pub fn token(login: &str) -> String {
    format!("{login}5ecret70ken0c0ffee")
}

pub fn token_file(base: &Path, login: &str) -> PathBuf {
    base.join(format!(
        "agents/{login}/secrets/gitea-mosaicstack-{login}.token"
    ))
}

/// A file as the comparison sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Bytes(Vec<u8>),
    Large(u64),
    Link(PathBuf),
    Other(&'static str),
}

type Files = BTreeMap<PathBuf, Seen>;

/// Everything in the scratch directory except git's object store, logs and index, which git
/// itself may touch; the queue's files, `.git/mosaic-queue.*`, refs and HEAD are all here.
fn files(base: &Path) -> Files {
    let mut out = Files::new();
    walk(base, base, &mut out);
    out
}

fn walk(base: &Path, path: &Path, out: &mut Files) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    let rel = path.strip_prefix(base).unwrap().to_path_buf();
    let ty = meta.file_type();
    let seen = if ty.is_dir() {
        let skip = ["repo/.git/objects", "repo/.git/logs", "repo/.git/index"];
        if skip.iter().any(|s| rel == Path::new(s)) {
            return;
        }
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            walk(base, &e, out);
        }
        Seen::Other("directory")
    } else if ty.is_symlink() {
        Seen::Link(std::fs::read_link(path).unwrap())
    } else if ty.is_fifo() {
        Seen::Other("fifo")
    } else if ty.is_socket() {
        Seen::Other("socket")
    } else if ty.is_char_device() || ty.is_block_device() {
        Seen::Other("device")
    } else if meta.len() > READ_LIMIT {
        Seen::Large(meta.len())
    } else if rel == Path::new("repo/.git/index") {
        return;
    } else {
        Seen::Bytes(std::fs::read(path).unwrap())
    };
    out.insert(rel, seen);
}

fn differences(before: &Files, after: &Files) -> Vec<String> {
    let mut out = Vec::new();
    for (path, seen) in before {
        match after.get(path) {
            None => out.push(format!("{} was removed", path.display())),
            Some(s) if s != seen => out.push(format!("{} changed", path.display())),
            _ => {}
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        out.push(format!("{} appeared", path.display()));
    }
    out
}

fn apply(setup: &Setup, base: &Path) {
    let at = |rel: &str| base.join(expand(rel, base));
    let clear = |p: &Path| {
        if let Ok(meta) = std::fs::symlink_metadata(p) {
            if meta.is_dir() {
                std::fs::remove_dir_all(p).unwrap();
            } else {
                std::fs::remove_file(p).unwrap();
            }
        }
    };
    match setup {
        Setup::Fifo(rel) => {
            let p = at(rel);
            clear(&p);
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &p,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o644),
                0,
            )
            .unwrap();
        }
        Setup::Dir(rel) => {
            let p = at(rel);
            clear(&p);
            std::fs::create_dir_all(&p).unwrap();
        }
        Setup::Sparse(rel, len) => {
            let p = at(rel);
            clear(&p);
            std::fs::File::create(&p).unwrap().set_len(*len).unwrap();
        }
        Setup::Symlink(rel, target) => {
            let p = at(rel);
            clear(&p);
            std::os::unix::fs::symlink(expand(target, base), &p).unwrap();
        }
        Setup::Write(rel, bytes) => {
            let p = at(rel);
            clear(&p);
            std::fs::write(&p, bytes).unwrap();
        }
        Setup::Remove(rel) => clear(&at(rel)),
        Setup::Mode(rel, mode) => {
            std::fs::set_permissions(at(rel), std::fs::Permissions::from_mode(*mode)).unwrap()
        }
        Setup::Run { .. } => unreachable!("runs are made by the runner"),
    }
}

/// What one child did.
struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary in `repo` with `args` and `env`, under the deadline and the memory limit.
fn spawn(
    repo: &Repo,
    args: &[OsString],
    env: &[(String, OsString)],
    stderr: Stderr,
    scratch: &Path,
) -> Result<Ran, String> {
    let mut cmd = command(&repo.root, &[], &[]);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out_path = scratch.with_extension("stdout");
    let err_path = scratch.with_extension("stderr");
    cmd.stdout(std::fs::File::create(&out_path).unwrap());
    match stderr {
        Stderr::Captured => {
            cmd.stderr(std::fs::File::create(&err_path).unwrap());
        }
        Stderr::Full => {
            cmd.stderr(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            );
        }
        Stderr::Closed => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            cmd.stderr(Stdio::from(writer));
        }
    }
    // SAFETY: setrlimit is async-signal-safe and touches no memory of this process.
    unsafe {
        cmd.pre_exec(|| {
            let limit = rustix::process::Rlimit {
                current: Some(MEMORY),
                maximum: Some(MEMORY),
            };
            rustix::process::setrlimit(rustix::process::Resource::Data, limit)?;
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| format!("spawn: {e}"))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > deadline() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hung: killed after {} s", deadline().as_secs()));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |p: &Path| {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
        let _ = std::fs::remove_file(p);
        text
    };
    Ok(Ran {
        code: status.code(),
        signal: status.signal(),
        stdout: read(&out_path),
        stderr: read(&err_path),
    })
}

/// The variables that point the binary at the case's fake Gitea as `by`.
fn gitea_env(fake: &FakeGitea, base: &Path, by: &str, deadline_ms: u64) -> Vec<(String, OsString)> {
    let login = if by == "lead" { "jarvis" } else { by };
    vec![
        ("MOSAIC_GITEA_URL".into(), fake.url().into()),
        ("MOSAIC_GITEA_REPO".into(), "mosaic/stack".into()),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE".into(),
            token_file(base, login).into(),
        ),
        (
            "MOSAIC_GITEA_DEADLINE_MS".into(),
            deadline_ms.to_string().into(),
        ),
    ]
}

/// What the case's output must say. The gist is on stdout for an answer (exit 0) and where
/// stderr cannot be written, else on stderr; a refusal that changed nothing prints nothing on
/// stdout and, where stderr is captured, exactly one line there; nothing panics.
fn says(case: &Case, ran: &Ran, wrong: &mut Vec<String>) {
    let captured = matches!(case.stderr, Stderr::Captured);
    // A usage error is one line too, as every failure is.
    let refusal = matches!(case.code, 1 | 2 | 4);
    // A run that wrote (a review request whose failed outcome is logged) prints the receipts
    // of what it wrote.
    if refusal && matches!(case.after, After::Unchanged) && !ran.stdout.is_empty() {
        wrong.push(format!("stdout on a refusal: {:?}", ran.stdout));
    }
    if captured && refusal && (ran.stderr.lines().count() != 1 || !ran.stderr.ends_with('\n')) {
        wrong.push("stderr is not exactly one line".into());
    }
    if case.gist.is_empty() {
        // Only a refusal with nowhere to say anything has no gist (`refuse_empty_gists`).
        if !ran.stdout.is_empty() {
            wrong.push(format!("stdout on a refusal: {:?}", ran.stdout));
        }
    } else if case.code == 0 || !captured {
        if !ran.stdout.contains(&case.gist) {
            wrong.push(format!("stdout lacks {:?}", case.gist));
        }
    } else if !ran.stderr.contains(&case.gist) {
        wrong.push(format!("stderr lacks {:?}", case.gist));
    }
    if captured && ran.stderr.contains("panicked") {
        wrong.push("panicked".into());
    }
}

/// A case whose gist is empty would match any output. Only a refusal whose stderr cannot be
/// written (exit 1, 2 or 4 with stderr at /dev/full or a closed pipe) has nothing to say, and
/// there its stdout must be empty; every other case names its gist.
fn refuse_empty_gists(cases: &[Case]) {
    let empty: Vec<&str> = cases
        .iter()
        .filter(|c| c.gist.is_empty())
        .filter(|c| matches!(c.stderr, Stderr::Captured) || !matches!(c.code, 1 | 2 | 4))
        .map(|c| c.name.as_str())
        .collect();
    assert!(
        empty.is_empty(),
        "{} cases have an empty gist, which matches anything: {empty:?}",
        empty.len()
    );
}

/// Runs one case in `w`; `Err` says what went wrong.
fn run_case(w: &mut Worker, case: &Case) -> Result<(), String> {
    w.restore();
    let base = w.repo.base.clone();
    // Every case runs with a Gitea and a token file the binary could read (the case's own, or
    // darkwing's), so the secret check below always has a real token to look for.
    let gitea = case.gitea.clone().unwrap_or(Gitea {
        by: "darkwing",
        scripts: Vec::new(),
        deadline_ms: 3_000,
    });
    let fake = FakeGitea::start("mosaic", "stack");
    for login in LOGINS {
        fake.add_user(&token(login), login);
    }
    for issue in [12, 14, 20] {
        fake.add_issue(issue);
    }
    for (endpoint, answer) in &gitea.scripts {
        fake.script(*endpoint, answer.clone());
    }
    let env_for = |extra: &[(String, Arg)]| {
        let mut env = gitea_env(&fake, &base, gitea.by, gitea.deadline_ms);
        for (k, v) in extra {
            env.retain(|(name, _)| name != k);
            env.push((k.clone(), os(v, &base)));
        }
        env
    };
    if !case.setup.is_empty() {
        w.dirty = true;
    }
    let scratch = base.with_extension(format!("case-{}", std::process::id()));
    for s in &case.setup {
        match s {
            Setup::Run { args, code } => {
                let args: Vec<OsString> = args.iter().map(|a| os(a, &base)).collect();
                let ran = spawn(&w.repo, &args, &env_for(&[]), Stderr::Captured, &scratch)?;
                if ran.code != Some(*code) {
                    return Err(format!(
                        "setup run {args:?} exited {:?}, not {code}: {}",
                        ran.code, ran.stderr
                    ));
                }
                let mut leaked = secrets::in_text(case, "a setup run's stdout", &ran.stdout);
                leaked.extend(secrets::in_text(case, "a setup run's stderr", &ran.stderr));
                if !leaked.is_empty() {
                    return Err(leaked.join("; "));
                }
            }
            other => apply(other, &base),
        }
    }
    let before = files(&base);
    let objects_before = secrets::loose_objects(&base);
    let args: Vec<OsString> = case.args.iter().map(|a| os(a, &base)).collect();
    let ran = spawn(&w.repo, &args, &env_for(&case.env), case.stderr, &scratch)?;
    let after = files(&base);
    let changed = differences(&before, &after);
    if !changed.is_empty() || !matches!(case.after, After::Unchanged) {
        w.dirty = true;
    }
    let mut wrong = Vec::new();
    if let Some(sig) = ran.signal {
        wrong.push(format!("killed by signal {sig}"));
    }
    if ran.code != Some(case.code) {
        wrong.push(format!("exit {:?}, expected {}", ran.code, case.code));
    }
    says(case, &ran, &mut wrong);
    let planted: Vec<PathBuf> = case
        .setup
        .iter()
        .filter_map(|s| match s {
            Setup::Write(rel, _) | Setup::Sparse(rel, _) | Setup::Fifo(rel) => {
                Some(PathBuf::from(expand(rel, &base)))
            }
            _ => None,
        })
        .collect();
    wrong.extend(secrets::leaks(
        case,
        &ran.stdout,
        &ran.stderr,
        &base,
        &planted,
        &objects_before,
    ));
    match &case.after {
        After::Unchanged => {
            if !changed.is_empty() {
                wrong.push(format!("files changed: {}", changed.join(", ")));
            }
        }
        After::Verifies | After::VerifiesWithout(_) => {
            let verify = spawn(&w.repo, &["verify".into()], &[], Stderr::Captured, &scratch)?;
            if verify.code != Some(0) {
                wrong.push(format!(
                    "the queue no longer verifies ({:?}): {}",
                    verify.code,
                    verify.stderr.trim_end()
                ));
            }
            if let After::VerifiesWithout(text) = &case.after {
                let md = std::fs::read(base.join("repo/docs/plans/QUEUE.md")).unwrap_or_default();
                if String::from_utf8_lossy(&md).contains(text.as_str()) {
                    wrong.push(format!("QUEUE.md shows {text:?}"));
                }
            }
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}; stderr: {:?}",
            wrong.join("; "),
            ran.stderr.chars().take(300).collect::<String>()
        ))
    }
}

/// Runs every case; the failures, each named.
pub fn run_all(cases: &[Case]) -> Vec<String> {
    refuse_empty_gists(cases);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let only = std::env::var("MOSAIC_HOSTILE_ONLY").ok();
    std::thread::scope(|s| {
        for n in 0..WORKERS {
            let (next, failures, only) = (&next, &failures, &only);
            s.spawn(move || {
                let mut w = Worker::new(n);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    if only
                        .as_ref()
                        .is_some_and(|o| !case.name.contains(o.as_str()))
                    {
                        continue;
                    }
                    let started = Instant::now();
                    if let Err(why) = run_case(&mut w, case) {
                        failures.lock().unwrap().push(format!(
                            "{} ({} ms): {why}",
                            case.name,
                            started.elapsed().as_millis()
                        ));
                    }
                }
            });
        }
    });
    let mut out = failures.into_inner().unwrap();
    out.sort();
    out
}
