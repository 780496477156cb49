//! A cut made over a tail its witness never confirmed, killed after its rename: the witness
//! is then older than the epoch, and every verb that checks it against the queue (doctor,
//! sync, accept-history, a read, a change) goes through the archive and agrees: the tail is
//! visible, not durable, and `sync` (doctor's cure) confirms it, naming the op the archive
//! holds as well as the cut.

use support::{Repo, change};

/// Row 1 taken into review on HEAD (revs 2 and 3, durable), its move to done killed after the
/// rename (rev 4 visible, the witness at rev 3), then the cut before rev 5 killed after its
/// rename too (rev 5 visible): each dead lock removed, as doctor would have it.
fn cut_over_a_tail(name: &str) -> Repo {
    let repo = Repo::new(name);
    let head = repo.git(&["rev-parse", "HEAD"]);
    let run = |args: &[&str], op: &str, by: &str, kill: Option<&str>| {
        let env: Vec<(&str, &str)> = kill
            .map(|step| ("MOSAIC_KILL_AT", step))
            .into_iter()
            .collect();
        repo.run(&change(args, op, by), &env)
    };
    let out = run(
        &["move", "1", "in-progress"],
        "darkwing-1-start",
        "darkwing",
        None,
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-1-start rev 2 move 1 queued -> in-progress\n"
    );
    let review = [
        "move",
        "1",
        "in-review",
        "--candidate",
        "HEAD",
        "--issue",
        "12",
    ];
    let out = run(&review, "darkwing-1-review", "darkwing", None);
    assert!(
        out.ok().starts_with("ok darkwing-1-review rev 3 "),
        "{}",
        out.stdout
    );
    let evidence = format!("comment=55,round=1,candidate=git:{head}");
    let done = ["move", "1", "done", "--evidence", &evidence];
    let out = run(&done, "darkwing-1-done", "darkwing", Some("queue-renamed"));
    assert_eq!(out.signal, Some(9), "{out:?}");
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead")
    );
    assert_eq!(repo.witness().unwrap()["revision"], 3);
    let cut = ["archive", "--before", "5", "--yes"];
    let out = run(&cut, "lead-archive-1", "lead", Some("queue-renamed"));
    assert_eq!(out.signal, Some(9), "{out:?}");
    assert!(
        repo.run(&["unlock"], &[])
            .ok()
            .starts_with("ok unlock: removed the dead")
    );
    assert_eq!(repo.queue()["revision"], 5);
    assert_eq!(repo.witness().unwrap()["revision"], 3);
    repo
}

const TAIL: &str = "tail-not-durable: revs 4 to 5 are visible, not confirmed durable (darkwing-1-done by darkwing, lead-archive-1 by lead); sync makes them durable and names each op's seat to tell: run `mosaic-queue sync`";

#[test]
fn doctor_and_sync_agree_on_a_witness_older_than_the_epoch() {
    let repo = cut_over_a_tail("cut-tail-sync");
    let doctor = repo.run(&["doctor"], &[]);
    assert_eq!(doctor.code, 2, "{doctor:?}");
    assert!(
        doctor.stdout.lines().any(|l| l == TAIL),
        "{}",
        doctor.stdout
    );
    // Reads answer through the archive and say the revision is not durable yet.
    let out = repo.run(&["list", "--json"], &[]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (0, "rev 5 visible, not confirmed durable\n")
    );
    let list: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&list["revision"], &list["durable"]),
        (&5.into(), &false.into())
    );
    // accept-history is for history lost; this history extends the witness through the
    // archive, so there is nothing to accept.
    let before = repo.snapshot();
    let accept = repo.run(
        &change(
            &["accept-history", "--reason", "r", "--yes"],
            "jason-accept-1",
            "jason",
        ),
        &[],
    );
    assert_eq!(accept.code, 2, "{accept:?}");
    assert!(
        accept
            .stderr
            .starts_with("mosaic-queue: nothing to accept: queue.json extends the witness (rev 3)"),
        "{}",
        accept.stderr
    );
    repo.assert_unchanged(&before);

    // doctor's cure: sync confirms the tail, the archived op named with the cut.
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "durable darkwing-1-done rev 4 (by darkwing): tell darkwing\n\
         durable lead-archive-1 rev 5 (by lead): tell lead\n\
         ok sync rev 5: 2 ops confirmed durable\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 5);
    let doctor = repo.run(&["doctor"], &[]);
    assert!(
        !doctor.stdout.contains("tail-not-durable"),
        "{}",
        doctor.stdout
    );
    assert_eq!(
        repo.run(&["sync", "--op", "darkwing-1-done"], &[]).ok(),
        "ok sync rev 5: darkwing-1-done is durable at rev 4 (by darkwing), archived in docs/plans/archive/epoch-0001.json\n"
    );
    assert!(
        repo.run(&["verify", "--full"], &[])
            .ok()
            .starts_with("ok verify rev 5 ")
    );
}

#[test]
fn the_cuts_retry_confirms_the_same_tail() {
    let repo = cut_over_a_tail("cut-tail-retry");
    let cut = ["archive", "--before", "5", "--yes"];
    let out = repo.run(&change(&cut, "lead-archive-1", "lead"), &[]);
    assert_eq!(
        out.ok(),
        "ok lead-archive-1 rev 5 archived 4 entries and 1 done rows to docs/plans/archive/epoch-0001.json\n"
    );
    assert_eq!(repo.witness().unwrap()["revision"], 5);
    assert_eq!(
        repo.run(&["sync"], &[]).ok(),
        "ok sync rev 5: nothing to confirm\n"
    );
}
