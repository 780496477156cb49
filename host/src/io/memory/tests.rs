use super::*;
use crate::io::RealIo;
use crate::io::trace::{Event, FaultKind, Tracer};

/// What a call answered, as both file systems must answer it: the value, or the error's raw
/// code and the refusal it carries, with the scratch root spelled `ROOT`.
fn said<T: std::fmt::Debug>(root: &Path, r: io::Result<T>) -> String {
    let text = match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => match crate::io::refusal(&e) {
            Some(refused) => format!("refused {}: {}", refused.kind_name(), refused),
            None => format!("err {:?} {:?}", e.kind(), e.raw_os_error()),
        },
    };
    text.replace(&root.display().to_string(), "ROOT")
}

/// Every call `RealIo` makes in a scratch directory and `MemIo` makes on a disk, side by side:
/// each answer must be the same, refusals and error codes included.
fn script(io: &dyn Io, root: &Path) -> Vec<String> {
    let p = |name: &str| root.join(name);
    let mut out = Vec::new();
    let mut say = |s: String| out.push(s);
    say(said(root, io.read(&p("a"), Kind::QueueJson)));
    say(said(root, io.create_synced(&p("a"), b"first")));
    say(said(root, io.create_synced(&p("a"), b"again")));
    say(said(root, io.read(&p("a"), Kind::QueueJson)));
    say(said(
        root,
        io.read_matches(&p("a"), Kind::QueueJson, b"first"),
    ));
    say(said(
        root,
        io.read_matches(&p("a"), Kind::QueueJson, b"firs"),
    ));
    say(said(
        root,
        io.create_synced_pieces(&p("p"), &[b"a,", b"", b"b"]),
    ));
    say(said(root, io.read(&p("p"), Kind::QueueJson)));
    say(said(root, io.link(&p("a"), &p("b"))));
    say(said(root, io.link(&p("a"), &p("b"))));
    say(said(root, io.link(&p("none"), &p("c"))));
    say(said(root, io.rename(&p("none"), &p("d"))));
    say(said(root, io.rename(&p("a"), &p("d"))));
    say(said(root, io.read(&p("a"), Kind::QueueJson)));
    say(said(root, io.read(&p("d"), Kind::QueueJson)));
    say(said(root, io.file_id(&p("d")).map(|id| id.size)));
    say(said(root, io.remove(&p("b"))));
    say(said(root, io.remove(&p("b"))));
    say(said(root, io.read(&p("sub"), Kind::Witness)));
    say(said(root, io.create_synced(&p("sub/x"), b"x")));
    say(said(root, io.create_synced(&p("missing/x"), b"x")));
    say(said(root, io.read(&p("link"), Kind::QueueMd)));
    say(said(root, io.read(&p("link"), Kind::Base)));
    say(said(root, io.create_synced(&p("link"), b"through")));
    say(said(root, io.read(&p("fifo"), Kind::QueueJson)));
    say(said(root, io.read(&p("big"), Kind::Lock)));
    say(said(root, io.create_unsynced(&p("view"), b"v")));
    say(said(root, io.sync_dir(root)));
    say(said(root, io.sync_dir(&p("missing"))));
    say(said(root, io.list(&p("missing"))));
    say(said(root, io.list(&p("d"))));
    say(said(root, io.remove(&p("sub"))));
    say(said(root, io.is_dir(&p("sub"))));
    say(said(root, io.is_dir(&p("d"))));
    say(said(root, io.is_dir(&p("link"))));
    say(said(root, io.is_dir(&p("missing"))));
    say(said(root, io.create_dir(&p("new"))));
    say(said(root, io.create_dir(&p("new"))));
    say(said(root, io.create_dir(&p("d"))));
    say(said(root, io.create_dir(&p("missing/new"))));
    say(said(root, io.create_synced(&p("new/x"), b"x")));
    say(said(
        root,
        io.list(root).map(|mut names| {
            names.sort();
            names
        }),
    ));
    out
}

#[test]
fn memory_answers_every_call_as_the_real_file_system_does() {
    let real_root = std::env::temp_dir().join(format!("mosaic-mem-parity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&real_root);
    std::fs::create_dir_all(real_root.join("sub")).unwrap();
    std::os::unix::fs::symlink(real_root.join("d"), real_root.join("link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        real_root.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::write(real_root.join("big"), vec![b'x'; 64 * 1024 + 1]).unwrap();
    let real = script(&RealIo, &real_root);
    let _ = std::fs::remove_dir_all(&real_root);

    let root = Path::new("/mem/scratch");
    let disk = Disk::new();
    disk.mkdir_all(&root.join("sub"));
    disk.symlink(&root.join("link"), &root.join("d"));
    disk.fifo(&root.join("fifo"));
    disk.put(&root.join("big"), &vec![b'x'; 64 * 1024 + 1]);
    let memory = script(&disk.io(None), root);
    assert_eq!(memory, real);
    // The script's answers are not all alike: the check would see a difference.
    assert!(
        real.iter()
            .any(|s| s.starts_with("refused file-is-symlink"))
    );
    assert!(real.iter().any(|s| s.starts_with("refused file-over-cap")));
    assert!(real.iter().any(|s| s.contains("AlreadyExists")));
}

/// The calls `create_synced` then `rename` make, as a recording hook sees them on each file
/// system: the same numbered events, so a trace taken in memory is the binary's trace.
#[test]
fn a_trace_in_memory_is_the_trace_of_the_real_calls() {
    let trace = |io: &dyn Io, root: &Path| {
        io.create_synced(&root.join(".t.tmp"), b"bytes").unwrap();
        io.step("temp-written");
        io.rename(&root.join(".t.tmp"), &root.join("t")).unwrap();
        io.sync_dir(root).unwrap();
    };
    let real_root = std::env::temp_dir().join(format!("mosaic-mem-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&real_root);
    std::fs::create_dir_all(&real_root).unwrap();
    // `Sys` holds a static hook: the tracer lives for the rest of the test process.
    let real: &'static Tracer = Box::leak(Box::new(Tracer::memory()));
    trace(&crate::io::Sys { hook: Some(real) }, &real_root);
    let real_events = real.events();
    let _ = std::fs::remove_dir_all(&real_root);

    let root = Path::new("/mem/t");
    let disk = Disk::new();
    disk.mkdir_all(root);
    let mem = Tracer::memory();
    trace(&disk.io(Some(&mem)), root);
    let strip = |events: Vec<Event>, root: &Path| -> Vec<String> {
        events
            .iter()
            .map(|e| {
                e.to_json()
                    .to_string()
                    .replace(&root.display().to_string(), "ROOT")
            })
            .collect()
    };
    let mem_events = strip(mem.events(), root);
    // `Sys` marks no steps (only `RealIo::step` reaches the seam), so the step is left out.
    let without_step: Vec<String> = mem_events
        .iter()
        .filter(|l| !l.contains("\"step\""))
        .cloned()
        .collect();
    assert_eq!(without_step, strip(real_events, &real_root));
    assert_eq!(mem_events.len(), 11, "{mem_events:#?}");
}

#[test]
fn a_power_loss_keeps_what_was_fsynced_and_nothing_else() {
    let root = Path::new("/mem/p");
    let disk = Disk::new();
    disk.put(&root.join("old"), b"old");
    let io = disk.io(None);
    // Synced file, entry not synced: lost with its directory entry.
    io.create_synced(&root.join("a"), b"a").unwrap();
    // Entry synced, data never synced: the name survives, empty.
    io.create_unsynced(&root.join("b"), b"b").unwrap();
    io.sync_dir(root).unwrap();
    // A rename after the last fsync of the directory is lost; the old name comes back.
    io.rename(&root.join("b"), &root.join("old")).unwrap();
    disk.power_loss();
    let files = disk.files(root);
    let names: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.file_name().unwrap().to_str().unwrap(), b.as_slice()))
        .collect();
    assert_eq!(
        names,
        [("a", &b"a"[..]), ("b", &b""[..]), ("old", &b"old"[..])]
    );
}

#[test]
fn a_short_write_lands_half_and_the_half_file_is_removed() {
    let root = Path::new("/mem/s");
    let disk = Disk::new();
    disk.mkdir_all(root);
    let tracer = Tracer::memory().failing(2, FaultKind::Short);
    let io = disk.io(Some(&tracer));
    let e = io
        .create_synced(&root.join("f"), b"0123456789")
        .unwrap_err();
    assert_eq!(e.raw_os_error(), Some(Errno::NOSPC.raw_os_error()));
    assert!(tracer.fired());
    assert_eq!(disk.names(root), Vec::<String>::new());
    let landed: Vec<Event> = tracer
        .events()
        .into_iter()
        .filter(|e| matches!(e, Event::Ok { .. }))
        .collect();
    assert_eq!(
        landed,
        [
            Event::Ok {
                n: 1,
                op: crate::io::trace::Op::Create(root.join("f"))
            },
            Event::Ok {
                n: 2,
                op: crate::io::trace::Op::Write(root.join("f"), b"01234".to_vec())
            },
            Event::Ok {
                n: 3,
                op: crate::io::trace::Op::Unlink(root.join("f"))
            },
        ]
    );
}
