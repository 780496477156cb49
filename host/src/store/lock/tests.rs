use super::probe::parse_stat;
use super::*;
use crate::io::RealIo;
use std::collections::HashMap;

/// A scratch checkout with an empty `.git`, removed when dropped.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let root = std::env::temp_dir().join(format!(
            "mosaic-queue-lock-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(root.join(".git")).unwrap();
        Scratch { root }
    }

    fn paths(&self) -> Paths {
        Paths::new(&self.root)
    }

    /// Everything in `.git`, sorted.
    fn git_entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.join(".git"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// This process is pid 100 (start 5) on host `h`, boot `b`; `procs` are the running ones.
struct Fake {
    procs: HashMap<u32, u64>,
}

impl Fake {
    fn new() -> Fake {
        Fake {
            procs: HashMap::from([(100, 5), (300, 7)]),
        }
    }
}

impl Probe for Fake {
    fn own_pid(&self) -> u32 {
        100
    }
    fn running(&self, pid: u32) -> bool {
        self.procs.contains_key(&pid)
    }
    fn start_time(&self, pid: u32) -> Option<u64> {
        self.procs.get(&pid).copied()
    }
    fn host(&self) -> String {
        "h".to_owned()
    }
    fn boot_id(&self) -> io::Result<String> {
        Ok("b".to_owned())
    }
}

fn holder(pid: u32, start: u64, host: &str, boot: &str) -> Holder {
    Holder {
        pid,
        start,
        host: host.to_owned(),
        boot: boot.to_owned(),
        op: Some("darkwing-9-start-1".to_owned()),
        verb: "move".to_owned(),
        at: "2026-01-02T03:04:05.678Z".to_owned(),
    }
}

fn live() -> Holder {
    holder(300, 7, "h", "b")
}
fn dead() -> Holder {
    holder(200, 7, "h", "b")
}
fn mismatch() -> Holder {
    holder(300, 6, "h", "b")
}
fn other_host() -> Holder {
    holder(300, 7, "elsewhere", "b")
}
fn other_boot() -> Holder {
    holder(300, 7, "h", "old-boot")
}

fn plant(path: &Path, h: &Holder) -> Vec<u8> {
    let bytes = to_canonical(h);
    std::fs::write(path, &bytes).unwrap();
    bytes
}

const AT: &str = "2026-01-02T03:04:05.678Z";
const SHORT: Duration = Duration::from_millis(200);

fn take<'a>(
    io: &'a dyn Io,
    probe: &dyn Probe,
    paths: &Paths,
    wait: Duration,
) -> Result<Lock<'a>, LockError> {
    acquire_with(io, probe, paths, Some("seat-op-0001"), "move", AT, wait)
}

#[test]
fn parse_stat_counts_from_the_last_paren() {
    let tail = "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21";
    assert_eq!(parse_stat(&format!("42 (cat) {tail}")), Some(('S', 987654)));
    assert_eq!(
        parse_stat(&format!("42 (a) (b c)) ) {tail}")),
        Some(('S', 987654))
    );
    assert_eq!(parse_stat("42 (cat) S 1 2"), None);
    assert_eq!(parse_stat("no paren at all"), None);
}

#[test]
fn real_probe_sees_this_process() {
    let probe = RealProbe;
    let pid = probe.own_pid();
    assert!(probe.running(pid));
    assert!(probe.start_time(pid).is_some());
    assert!(!probe.boot_id().unwrap().is_empty());
    assert!(!probe.running(0));
    assert!(!probe.running(u32::MAX));
}

#[test]
fn temp_names_have_the_documented_shape_and_differ() {
    let target = Path::new("/x/.git/mosaic-queue.lock");
    let a = temp_name(target, 42);
    let b = temp_name(target, 42);
    assert_ne!(a, b);
    let name = a.file_name().unwrap().to_str().unwrap();
    let hex = name
        .strip_prefix("mosaic-queue.lock.42.")
        .and_then(|r| r.strip_suffix(".tmp"))
        .unwrap();
    assert_eq!(hex.len(), 16);
    assert!(hex.bytes().all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn take_and_release() {
    let s = Scratch::new("take");
    let paths = s.paths();
    let lock = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
    let bytes = std::fs::read(&paths.lock).unwrap();
    let on_disk: Holder = parse_canonical(&bytes).unwrap();
    assert_eq!(&on_disk, lock.holder());
    assert_eq!(on_disk.pid, std::process::id());
    assert_eq!(on_disk.op.as_deref(), Some("seat-op-0001"));
    assert_eq!(on_disk.verb, "move");
    let keys: Vec<&str> = std::str::from_utf8(&bytes)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .collect();
    assert_eq!(keys, ["pid", "start", "host", "boot", "op", "verb", "at"]);
    // The temp file is gone once the link is made.
    assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
    lock.release().unwrap();
    assert!(s.git_entries().is_empty());
}

#[test]
fn drop_releases() {
    let s = Scratch::new("drop");
    let paths = s.paths();
    drop(take(&RealIo, &RealProbe, &paths, SHORT).unwrap());
    assert!(s.git_entries().is_empty());
    take(&RealIo, &RealProbe, &paths, SHORT)
        .unwrap()
        .release()
        .unwrap();
}

#[test]
fn release_leaves_a_lock_that_is_not_ours() {
    let s = Scratch::new("lost");
    let paths = s.paths();
    let lock = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
    let other = plant(&paths.lock, &live());
    let err = lock.release().unwrap_err();
    assert!(matches!(err, LockError::Lost { .. }), "{err}");
    assert_eq!(std::fs::read(&paths.lock).unwrap(), other);
}

#[test]
fn second_acquire_times_out_naming_the_holder() {
    let s = Scratch::new("held");
    let paths = s.paths();
    let first = acquire_with(
        &RealIo,
        &RealProbe,
        &paths,
        Some("first-op-0001"),
        "add",
        AT,
        SHORT,
    )
    .unwrap();
    let t = Instant::now();
    let err = take(&RealIo, &RealProbe, &paths, SHORT).unwrap_err();
    assert!(t.elapsed() >= SHORT);
    match &err {
        LockError::Held { holder, .. } => assert_eq!(**holder, *first.holder()),
        other => panic!("expected Held, got {other}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("pid {}", std::process::id())),
        "{msg}"
    );
    assert!(
        msg.contains("op first-op-0001") && msg.contains("verb add") && msg.contains(AT),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
    assert_eq!(err.exit(), Exit::Failed);
    // The waiter's temp file is gone; the holder's lock is untouched.
    assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
    first.release().unwrap();
}

#[test]
fn waiter_wakes_when_the_holder_releases() {
    let s = Scratch::new("wake");
    let paths = s.paths();
    let held = take(&RealIo, &RealProbe, &paths, SHORT).unwrap();
    // Far longer than the test: only the release ends the wait in time (running out fails).
    let timeout = Duration::from_secs(600);
    let waiter_paths = paths.clone();
    let waiter = std::thread::spawn(move || {
        let io = RealIo;
        let got = take(&io, &RealProbe, &waiter_paths, timeout).map(Lock::release);
        got.map_err(|e| e.to_string())
    });
    // Released once the waiter sleeps on its watch of .git, so the release is what wakes it.
    support::watch::until_watching(std::process::id(), &paths.git_dir);
    held.release().unwrap();
    waiter.join().unwrap().unwrap().unwrap();
    assert!(s.git_entries().is_empty());
}

#[test]
fn watch_wakes_for_its_name_only() {
    let s = Scratch::new("watch");
    let paths = s.paths();
    let other = paths.git_dir.join("index.lock");
    std::fs::write(&other, b"").unwrap();
    std::fs::write(&paths.lock, b"").unwrap();
    let mut waiter = Waiter::new(&paths.git_dir, OsStr::new("mosaic-queue.lock"));
    assert!(
        matches!(waiter, Waiter::Watch { .. }),
        "inotify is available"
    );
    // Git's own lock files come and go in .git; they must not end the wait.
    std::fs::remove_file(&other).unwrap();
    let t = Instant::now();
    waiter.wait(SHORT).unwrap();
    assert!(t.elapsed() >= SHORT);
    // The watch is in place, so the removal's event waits for `wait`: no thread, no sleep. A
    // wait that missed it would sit out its ten minutes and fail the bound below.
    std::fs::remove_file(&paths.lock).unwrap();
    let t = Instant::now();
    waiter.wait(Duration::from_secs(600)).unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(300),
        "not woken by the removal"
    );
}

#[test]
fn classes() {
    let probe = Fake::new();
    let here = here(&probe).unwrap();
    let class = |h: &Holder| classify_at(&probe, &here, &to_canonical(h));
    assert_eq!(class(&live()), Class::Live(live()));
    assert_eq!(class(&dead()), Class::Dead(dead()));
    assert_eq!(class(&mismatch()), Class::Mismatch(mismatch()));
    assert_eq!(class(&other_host()), Class::Unknown(other_host()));
    // This host's earlier boot: dead whatever its pid names now (300 runs here).
    assert_eq!(class(&other_boot()), Class::Rebooted(other_boot()));
    assert_eq!(class(&other_boot()).name(), "dead");
    assert_eq!(
        class(&other_boot()).to_string(),
        "dead: pid 300 (op darkwing-9-start-1, verb move, at 2026-01-02T03:04:05.678Z) was taken during an earlier boot of this host (boot old-boot), so it is no longer running"
    );
    // Another host with our boot id is still another host.
    let elsewhere = holder(200, 7, "elsewhere", "old-boot");
    assert_eq!(class(&elsewhere), Class::Unknown(elsewhere.clone()));
    let compact = serde_json::to_vec(&live()).unwrap();
    // Canonical layout, but a field a holder does not have.
    let text = String::from_utf8(to_canonical(&live())).unwrap();
    let extra = text.replace("\n}\n", ",\n  \"extra\": 1\n}\n").into_bytes();
    assert_ne!(extra, text.as_bytes());
    let missing = b"{\n  \"pid\": 300\n}\n".to_vec();
    for bad in [
        b"".to_vec(),
        b"garbage".to_vec(),
        compact,
        extra,
        missing,
        to_canonical(&holder(0, 7, "h", "b")),
        to_canonical(&holder(u32::MAX, 7, "h", "b")),
    ] {
        let c = classify_at(&probe, &here, &bad);
        assert_eq!(c.name(), "invalid", "{c}");
        assert!(!c.to_string().contains('\n'));
    }
}

#[test]
fn acquire_refuses_and_keeps_dead_and_mismatched_locks() {
    for (h, name) in [
        (dead(), "dead"),
        (other_boot(), "dead"),
        (mismatch(), "mismatch"),
    ] {
        let s = Scratch::new(name);
        let paths = s.paths();
        let bytes = plant(&paths.lock, &h);
        // A wait of ten minutes that the bound below would catch: it fails at once instead.
        let t = Instant::now();
        let err = take(&RealIo, &Fake::new(), &paths, Duration::from_secs(600)).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(300), "it failed at once");
        match &err {
            LockError::Stale { class, .. } => assert_eq!(class.name(), name),
            other => panic!("expected Stale, got {other}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains("mosaic-queue unlock")
                && msg.contains("pid ")
                && msg.contains("op darkwing-9-start-1"),
            "{msg}"
        );
        assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
        assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
    }
}

/// A holder that releases its lock and exits while it is being probed: the first probe of its
/// pid removes the lock file (or puts another holder's in its place) and finds it gone.
struct ExitsWhileProbed {
    lock: PathBuf,
    replace_with: Option<Holder>,
    probes: std::cell::Cell<u32>,
}

impl Probe for ExitsWhileProbed {
    fn own_pid(&self) -> u32 {
        100
    }
    fn running(&self, pid: u32) -> bool {
        if pid == 200 && self.probes.replace(self.probes.get() + 1) == 0 {
            match &self.replace_with {
                Some(next) => drop(plant(&self.lock, next)),
                None => std::fs::remove_file(&self.lock).unwrap(),
            }
        }
        Fake::new().running(pid)
    }
    fn start_time(&self, pid: u32) -> Option<u64> {
        Fake::new().start_time(pid)
    }
    fn host(&self) -> String {
        "h".to_owned()
    }
    fn boot_id(&self) -> io::Result<String> {
        Ok("b".to_owned())
    }
}

#[test]
fn a_lock_released_while_its_holder_is_probed_is_not_stale() {
    let s = Scratch::new("released-while-probed");
    let paths = s.paths();
    plant(&paths.lock, &dead());
    let probe = ExitsWhileProbed {
        lock: paths.lock.clone(),
        replace_with: None,
        probes: std::cell::Cell::new(0),
    };
    let lock = take(&RealIo, &probe, &paths, SHORT).unwrap();
    assert_eq!(probe.probes.get(), 1);
    assert_eq!(lock.holder().pid, 100);
    lock.release().unwrap();
    assert!(s.git_entries().is_empty());
}

#[test]
fn a_lock_taken_over_while_its_old_holder_is_probed_is_classified_anew() {
    // The dead holder released and a live one took the lock: this is a wait for the live
    // holder, never a stale refusal naming the first.
    let s = Scratch::new("taken-while-probed");
    let paths = s.paths();
    plant(&paths.lock, &dead());
    let probe = ExitsWhileProbed {
        lock: paths.lock.clone(),
        replace_with: Some(live()),
        probes: std::cell::Cell::new(0),
    };
    match take(&RealIo, &probe, &paths, SHORT).unwrap_err() {
        LockError::Held { holder, .. } => assert_eq!(*holder, live()),
        other => panic!("expected Held, got {other}"),
    }
    assert_eq!(std::fs::read(&paths.lock).unwrap(), to_canonical(&live()));
}

#[test]
fn acquire_refuses_unknown_and_invalid_locks() {
    for (bytes, name) in [
        (to_canonical(&other_host()), "unknown"),
        (b"{}".to_vec(), "invalid"),
    ] {
        let s = Scratch::new(name);
        let paths = s.paths();
        std::fs::write(&paths.lock, &bytes).unwrap();
        let err = take(&RealIo, &Fake::new(), &paths, Duration::from_secs(5)).unwrap_err();
        match &err {
            LockError::NeedsPerson { class, .. } => assert_eq!(class.name(), name),
            other => panic!("expected NeedsPerson, got {other}"),
        }
        assert!(err.to_string().contains("a person must"), "{err}");
        assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
        assert_eq!(s.git_entries(), ["mosaic-queue.lock"]);
    }
}

#[test]
fn acquire_with_a_fake_probe_writes_its_facts() {
    let s = Scratch::new("fake");
    let paths = s.paths();
    let lock = take(&RealIo, &Fake::new(), &paths, SHORT).unwrap();
    assert_eq!((lock.holder().pid, lock.holder().start), (100, 5));
    let err = take(&RealIo, &Fake::new(), &paths, SHORT).unwrap_err();
    assert!(matches!(err, LockError::Held { .. }), "{err}");
    lock.release().unwrap();
}

#[test]
fn unlock_removes_only_dead_and_mismatched_locks() {
    let probe = Fake::new();
    for (h, want) in [
        (dead(), Unlocked::Dead(dead())),
        (other_boot(), Unlocked::Dead(other_boot())),
        (mismatch(), Unlocked::Mismatch(mismatch())),
    ] {
        let s = Scratch::new("unlock-stale");
        let paths = s.paths();
        plant(&paths.lock, &h);
        let done = unlock_with(&RealIo, &probe, &paths, AT).unwrap();
        assert_eq!(done, want);
        assert!(done.to_string().starts_with("removed the"));
        assert!(s.git_entries().is_empty(), "lock and gate are gone");
    }
    for (bytes, name) in [
        (to_canonical(&live()), "live"),
        (to_canonical(&other_host()), "unknown"),
        (b"not json".to_vec(), "invalid"),
    ] {
        let s = Scratch::new("unlock-refuse");
        let paths = s.paths();
        std::fs::write(&paths.lock, &bytes).unwrap();
        let err = unlock_with(&RealIo, &probe, &paths, AT).unwrap_err();
        match &err {
            LockError::Refused { class, .. } => assert_eq!(class.name(), name),
            other => panic!("expected Refused, got {other}"),
        }
        assert_eq!(err.exit(), Exit::Failed);
        assert_eq!(std::fs::read(&paths.lock).unwrap(), bytes);
        assert_eq!(s.git_entries(), ["mosaic-queue.lock"], "the gate is gone");
    }
    let s = Scratch::new("unlock-none");
    assert_eq!(
        unlock_with(&RealIo, &probe, &s.paths(), AT).unwrap(),
        Unlocked::NoLock
    );
    assert!(s.git_entries().is_empty());
}

#[test]
fn unlock_refuses_while_the_gate_is_held() {
    let probe = Fake::new();
    let s = Scratch::new("gate-held");
    let paths = s.paths();
    let lock = plant(&paths.lock, &dead());
    let gate = plant(&paths.gate, &live());
    let err = unlock_with(&RealIo, &probe, &paths, AT).unwrap_err();
    match &err {
        LockError::GateHeld { class, .. } => assert_eq!(class.name(), "live"),
        other => panic!("expected GateHeld, got {other}"),
    }
    assert!(err.to_string().contains("--check-gate"), "{err}");
    assert_eq!(std::fs::read(&paths.lock).unwrap(), lock);
    assert_eq!(std::fs::read(&paths.gate).unwrap(), gate);
    assert_eq!(
        s.git_entries(),
        ["mosaic-queue.lock", "mosaic-queue.unlock"]
    );
}

#[test]
fn unlock_gate_records_the_unlock() {
    // A probe that looks at the gate while unlock holds it.
    struct Peek<'a> {
        inner: Fake,
        gate: &'a Path,
        seen: std::cell::RefCell<Option<Vec<u8>>>,
    }
    impl Probe for Peek<'_> {
        fn own_pid(&self) -> u32 {
            self.inner.own_pid()
        }
        fn running(&self, pid: u32) -> bool {
            if self.seen.borrow().is_none() {
                *self.seen.borrow_mut() = std::fs::read(self.gate).ok();
            }
            self.inner.running(pid)
        }
        fn start_time(&self, pid: u32) -> Option<u64> {
            self.inner.start_time(pid)
        }
        fn host(&self) -> String {
            self.inner.host()
        }
        fn boot_id(&self) -> io::Result<String> {
            self.inner.boot_id()
        }
    }
    let s = Scratch::new("gate-content");
    let paths = s.paths();
    plant(&paths.lock, &dead());
    let probe = Peek {
        inner: Fake::new(),
        gate: &paths.gate,
        seen: None.into(),
    };
    unlock_with(&RealIo, &probe, &paths, AT).unwrap();
    let seen: Holder = parse_canonical(&probe.seen.take().unwrap()).unwrap();
    assert_eq!(
        (seen.pid, seen.start, seen.op, seen.verb),
        (100, 5, None, "unlock".to_owned())
    );
}

#[test]
fn check_gate_classifies_and_removes_nothing() {
    let probe = Fake::new();
    let s = Scratch::new("check-gate");
    let paths = s.paths();
    assert_eq!(check_gate_with(&RealIo, &probe, &paths).unwrap(), None);
    for (bytes, name) in [
        (to_canonical(&live()), "live"),
        (to_canonical(&dead()), "dead"),
        (to_canonical(&mismatch()), "mismatch"),
        (to_canonical(&other_boot()), "dead"),
        (to_canonical(&other_host()), "unknown"),
        (b"{\"pid\": 1}".to_vec(), "invalid"),
    ] {
        std::fs::write(&paths.gate, &bytes).unwrap();
        let class = check_gate_with(&RealIo, &probe, &paths).unwrap().unwrap();
        assert_eq!(class.name(), name, "{class}");
        assert_eq!(std::fs::read(&paths.gate).unwrap(), bytes);
    }
}

#[test]
fn stray_temp_files_are_never_read_or_removed() {
    let probe = Fake::new();
    let s = Scratch::new("stray");
    let paths = s.paths();
    let stray_lock = paths
        .git_dir
        .join("mosaic-queue.lock.4242.0123456789abcdef.tmp");
    let stray_gate = paths
        .git_dir
        .join("mosaic-queue.unlock.4242.fedcba9876543210.tmp");
    // Garbage, so reading either as a lock would show up as an invalid class.
    std::fs::write(&stray_lock, b"stray lock temp").unwrap();
    std::fs::write(&stray_gate, b"stray gate temp").unwrap();

    let lock = take(&RealIo, &probe, &paths, SHORT).unwrap();
    assert!(matches!(
        take(&RealIo, &probe, &paths, SHORT),
        Err(LockError::Held { .. })
    ));
    lock.release().unwrap();
    assert_eq!(
        unlock_with(&RealIo, &probe, &paths, AT).unwrap(),
        Unlocked::NoLock
    );
    plant(&paths.lock, &dead());
    assert!(matches!(
        take(&RealIo, &probe, &paths, SHORT),
        Err(LockError::Stale { .. })
    ));
    assert_eq!(
        unlock_with(&RealIo, &probe, &paths, AT).unwrap(),
        Unlocked::Dead(dead())
    );
    assert_eq!(check_gate_with(&RealIo, &probe, &paths).unwrap(), None);

    assert_eq!(std::fs::read(&stray_lock).unwrap(), b"stray lock temp");
    assert_eq!(std::fs::read(&stray_gate).unwrap(), b"stray gate temp");
    assert_eq!(
        s.git_entries(),
        [
            "mosaic-queue.lock.4242.0123456789abcdef.tmp",
            "mosaic-queue.unlock.4242.fedcba9876543210.tmp"
        ]
    );
}
