//! The queue lock as a writer meets it, end to end: a live holder is waited for (the wait
//! shortened through the fault-injection build's MOSAIC_LOCK_WAIT_MS), and a dead, reused,
//! foreign or unreadable lock is never broken: the writer exits 1 naming it, files unchanged.

use std::process::Stdio;
use std::time::{Duration, Instant};

use support::watch::until_watching;
use support::{Holder, Repo, command, run_within};

/// `args` plus `--op OP` and `--by BY`.
fn change<'a>(args: &[&'a str], op: &'a str, by: &'a str) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(["--op", op, "--by", by]);
    v
}

fn note(op: &str) -> Vec<&str> {
    change(&["note", "1", "from a writer"], op, "darkwing")
}

/// What a lock file's holder looks like in a message.
fn named(h: &Holder) -> String {
    format!(
        "pid {} (op {}, verb {}, at {})",
        h.pid,
        h.op.as_deref().unwrap_or("none"),
        h.verb,
        h.at
    )
}

fn lock_path(repo: &Repo) -> String {
    repo.path(".git/mosaic-queue.lock").display().to_string()
}

#[test]
fn a_dead_lock_is_named_and_left_for_unlock() {
    let repo = Repo::new("lock-dead");
    let dead = Holder::dead();
    repo.plant_lock(&dead);
    let before = repo.snapshot();
    let line = format!(
        "mosaic-queue: the queue lock {} is stale (dead: {} is no longer running); writers never break it: run `mosaic-queue unlock`, then retry the same op",
        lock_path(&repo),
        named(&dead)
    );
    // A dead lock fails at once: with a lock wait of ten minutes, a writer that waited on it
    // would outlast the minute `run_within` allows and fail the test.
    let wait = [("MOSAIC_LOCK_WAIT_MS", "600000")];
    for args in [
        note("darkwing-1-note"),
        vec!["verify"],
        vec!["render", "--check"],
    ] {
        let out = run_within(&repo.root, &args, &wait, Duration::from_secs(60));
        assert_eq!(out.fails(1), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
    // Unlocked reads do not take the lock.
    repo.run(&["list"], &[]).ok();
    // Once the lock is gone (by hand here), the same op goes through.
    std::fs::remove_file(repo.path(".git/mosaic-queue.lock")).unwrap();
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &[]).ok(),
        "ok darkwing-1-note rev 2 note 1\n"
    );
    assert!(!repo.path(".git/mosaic-queue.lock").exists());
}

#[test]
fn a_reused_pid_is_a_mismatch() {
    let repo = Repo::new("lock-mismatch");
    // This process runs, but did not start at the recorded time.
    let mut holder = Holder::this_process();
    holder.start += 1;
    repo.plant_lock(&holder);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &[]).fails(1),
        format!(
            "mosaic-queue: the queue lock {} is stale (mismatch: {} is gone and its pid now belongs to another process); writers never break it: run `mosaic-queue unlock`, then retry the same op",
            lock_path(&repo),
            named(&holder)
        )
    );
    repo.assert_unchanged(&before);
}

#[test]
fn foreign_and_unreadable_locks_wait_for_a_person() {
    let repo = Repo::new("lock-person");
    let mut foreign = Holder::this_process();
    foreign.host = "elsewhere".to_owned();
    repo.plant_lock(&foreign);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &[]).fails(1),
        format!(
            "mosaic-queue: the queue lock {} is unknown: {} was taken on host elsewhere, boot {}, which this host cannot check; locks are never removed for their age: a person must check that no queue command is running and remove it by hand",
            lock_path(&repo),
            named(&foreign),
            foreign.boot
        )
    );
    repo.assert_unchanged(&before);

    repo.write(".git/mosaic-queue.lock", "not a lock\n");
    let before = repo.snapshot();
    let out = repo.run(&note("darkwing-1-note"), &[]);
    let line = out.fails(1);
    assert!(
        line.starts_with(&format!(
            "mosaic-queue: the queue lock {} is invalid: ",
            lock_path(&repo)
        )) && line.ends_with("; locks are never removed for their age: a person must check that no queue command is running and remove it by hand"),
        "{line}"
    );
    repo.assert_unchanged(&before);
}

#[test]
#[cfg_attr(
    not(feature = "fault-injection"),
    ignore = "shortening the wait needs the fault-injection build"
)]
fn a_live_lock_is_waited_for_then_named() {
    let repo = Repo::new("lock-live");
    let holder = Holder::this_process();
    repo.plant_lock(&holder);
    let before = repo.snapshot();
    let wait = [("MOSAIC_LOCK_WAIT_MS", "400")];
    let t = Instant::now();
    let out = repo.run(&note("darkwing-1-note"), &wait);
    let waited = t.elapsed();
    let line = out.fails(1);
    let head = format!(
        "mosaic-queue: the queue lock {} is held by {} and was not released within ",
        lock_path(&repo),
        named(&holder)
    );
    assert!(
        line.starts_with(&head)
            && line.ends_with("s; retry the same op once that command finishes"),
        "{line}"
    );
    assert!(
        waited >= Duration::from_millis(400),
        "it waited: {waited:?}"
    );
    repo.assert_unchanged(&before);

    // A read that has to take the lock (here: the file is behind its witness) waits for the
    // holder too, and reports the lock, never "history was lost", while a write may be under
    // way.
    let witness = repo.read_bytes(".git/mosaic-queue.head");
    std::fs::remove_file(repo.path(".git/mosaic-queue.lock")).unwrap();
    let old = repo.read_bytes("docs/plans/queue.json");
    repo.run(&note("darkwing-1-note"), &[]).ok();
    repo.write("docs/plans/queue.json", &old);
    assert_ne!(repo.read_bytes(".git/mosaic-queue.head"), witness);
    repo.plant_lock(&holder);
    let out = repo.run(&["list"], &wait);
    assert!(out.fails(1).starts_with(&head), "{}", out.stderr);
}

#[test]
#[cfg_attr(
    not(feature = "fault-injection"),
    ignore = "a bounded wait needs the fault-injection build"
)]
fn a_writer_goes_on_when_the_live_holder_lets_go() {
    let repo = Repo::new("lock-release");
    repo.plant_lock(&Holder::this_process());
    // A wait far longer than the test: only the release can end it in time; running out would
    // fail the test (exit 1), never pass it.
    let mut child = command(
        &repo.root,
        &note("darkwing-1-note"),
        &[("MOSAIC_LOCK_WAIT_MS", "600000")],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Once the writer sleeps on its watch of .git, release the lock as the holder would.
    until_watching(child.id(), &repo.path(".git"));
    assert!(child.try_wait().unwrap().is_none(), "the writer waits");
    std::fs::remove_file(repo.path(".git/mosaic-queue.lock")).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        (Some(0), "ok darkwing-1-note rev 2 note 1\n", "")
    );
    assert!(!repo.path(".git/mosaic-queue.lock").exists());
}

#[test]
fn a_lock_from_an_earlier_boot_of_this_host_is_dead() {
    // A power loss mid-write leaves the writer's lock with the boot id of the boot that ended:
    // no process of that boot still runs, so the lock is dead, whatever its pid names now
    // (here the running test process), and one `unlock` cures it.
    let repo = Repo::new("lock-rebooted");
    let mut old = Holder::this_process();
    old.boot = "00000000-0000-4000-8000-000000000000".to_owned();
    repo.plant_lock(&old);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &[]).fails(1),
        format!(
            "mosaic-queue: the queue lock {} is stale (dead: {} was taken during an earlier boot of this host (boot {}), so it is no longer running); writers never break it: run `mosaic-queue unlock`, then retry the same op",
            lock_path(&repo),
            named(&old),
            old.boot
        )
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.run(&["unlock"], &[]).ok(),
        format!(
            "ok unlock: removed the dead queue lock of {}\n",
            named(&old)
        )
    );
    assert!(!repo.path(".git/mosaic-queue.lock").exists());
    assert!(!repo.path(".git/mosaic-queue.unlock").exists());
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &[]).ok(),
        "ok darkwing-1-note rev 2 note 1\n"
    );
}

#[test]
fn another_hosts_lock_stays_unknown_whatever_its_boot() {
    let repo = Repo::new("lock-foreign-boot");
    let mut foreign = Holder::dead();
    foreign.host = "elsewhere".to_owned();
    foreign.boot = "00000000-0000-4000-8000-000000000000".to_owned();
    repo.plant_lock(&foreign);
    let before = repo.snapshot();
    let line = repo.run(&["unlock"], &[]).fails(1).to_owned();
    assert_eq!(
        line,
        format!(
            "mosaic-queue: not removing the queue lock {} (unknown: {} was taken on host elsewhere, boot {}, which this host cannot check): a person must check that no queue command is running and remove it by hand",
            lock_path(&repo),
            named(&foreign),
            foreign.boot
        )
    );
    repo.assert_unchanged(&before);
}

#[test]
#[cfg_attr(
    not(feature = "fault-injection"),
    ignore = "playing a reboot needs the fault-injection build's MOSAIC_BOOT_ID"
)]
fn after_a_played_reboot_a_running_pid_does_not_keep_the_lock_alive() {
    // The lock names this test process, which runs: live on this boot. The binary told that
    // the host has booted since (MOSAIC_BOOT_ID) calls it dead and unlock removes it.
    let repo = Repo::new("lock-played-reboot");
    let holder = Holder::this_process();
    repo.plant_lock(&holder);
    let reboot = [("MOSAIC_BOOT_ID", "11111111-2222-4333-8444-555555555555")];
    let line = repo
        .run(&note("darkwing-1-note"), &reboot)
        .fails(1)
        .to_owned();
    assert!(
        line.contains("was taken during an earlier boot of this host")
            && line.ends_with("run `mosaic-queue unlock`, then retry the same op"),
        "{line}"
    );
    assert_eq!(
        repo.run(&["unlock"], &reboot).ok(),
        format!(
            "ok unlock: removed the dead queue lock of {}\n",
            named(&holder)
        )
    );
    assert_eq!(
        repo.run(&note("darkwing-1-note"), &reboot).ok(),
        "ok darkwing-1-note rev 2 note 1\n"
    );
}
