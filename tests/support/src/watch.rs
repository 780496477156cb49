//! Events a test can wait for in another process instead of sleeping: that it holds an inotify
//! watch on a directory, which is how `wait` and a writer waiting on the lock sleep until the
//! thing they wait for changes.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Blocks until process `pid` holds an inotify watch on the directory at `dir` (its inode, as
/// `/proc/PID/fdinfo` lists each watch), so what the test does next happens while it waits.
/// The deadline only fails the test; it never decides what the waiter answers.
#[track_caller]
pub fn until_watching(pid: u32, dir: &Path) {
    let ino = format!("ino:{:x} ", std::fs::metadata(dir).unwrap().ino());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap();
        let watched = fds.flatten().any(|fd| {
            let is_inotify = std::fs::read_link(fd.path())
                .is_ok_and(|l| l.to_string_lossy() == "anon_inode:inotify");
            let info = format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy());
            is_inotify
                && std::fs::read_to_string(info).is_ok_and(|t| {
                    t.lines()
                        .any(|l| l.starts_with("inotify wd:") && l.contains(&ino))
                })
        });
        if watched {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "process {pid} never watched {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Blocks until `done` holds, checking every 10 ms: for a change another process makes that no
/// watch can tell apart (a file's content, a process gone). As above, the deadline only fails
/// the test, naming `what`; it never decides what the test asserts.
#[track_caller]
pub fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
