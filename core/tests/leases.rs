//! Semantics 7 beyond the leases scenario's steps: `next` and `--explain` judged with signs of
//! life, takes that must not reclaim (a clock stepped back, a stamp ahead, a heartbeat not
//! read), replay holding every reclaim to what the log proves (each refusal by kind, a few
//! word for word), and a cut carrying leases, fences and the default across an epoch.

mod common;

use mosaic_queue_core::{
    Args, Command, CutOutcome, LeaseDefaultArgs, NoteArgs, Outcome, Queue, ReclaimArgs, Reclaimed,
    TakeArgs, TakeCmd, VerbError, parse_queue,
    pick::{self, Why},
    signs::{Liveness, Signs},
    verify_full,
};

const DEWEY_SEEN: &str = "2026-12-01T09:20:00.000Z";

/// The leases scenario run through its first `steps` steps.
fn leases(steps: usize) -> Queue {
    let mut sc = common::load_scenario("leases");
    sc.steps.truncate(steps);
    common::run(&sc)
}

/// The scenario up to dewey's note on row 3 (rev 6): huey holds row 1 without a lease, louie
/// row 2 with the default (2h, since 09:04), dewey row 3 with 45m last seen at 09:20, and
/// darkwing row 4 (in progress from genesis, no lease).
fn claimed() -> Queue {
    let q = leases(8);
    assert_eq!(q.revision(), 6);
    q
}

fn t(hms: &str) -> String {
    format!("2026-12-01T{hms}.000Z")
}

fn take(lease: Option<u32>, from: &str, seen: &str, old: u32) -> Args {
    Args::Take(Box::new(TakeArgs {
        id: 3,
        lease,
        reclaim: Some(Reclaimed {
            from: from.into(),
            seen: seen.into(),
            lease: old,
        }),
    }))
}

/// The kind a refused entry gives; the queue must be left as it was.
fn refused(q: &Queue, args: Args, by: &str, at: &str, semantics: u8) -> &'static str {
    let mut copy = q.clone();
    let err = copy
        .append_entry(args, "webby-take-0099", by, at, semantics)
        .expect_err("refused");
    assert_eq!(copy.to_bytes(), q.to_bytes());
    err.kind()
}

#[test]
fn next_and_explain_judge_claims_with_the_signs() {
    let q = claimed();
    let signs = Signs::none().with("dewey", &t("09:10:00"));
    let rows = q.rows();
    // 10:00: dewey's 45m runs until 10:05 (its note at 09:20 is the later sign).
    let early = pick::explain_with(rows, "webby", &signs, &t("10:00:00"));
    assert_eq!(early.pick, None);
    let text: Vec<String> = early
        .passed
        .iter()
        .map(|(id, why)| format!("{id}: {why} ({})", why.code()))
        .collect();
    assert_eq!(
        text,
        [
            "1: owned by huey (owned)",
            "2: claim by louie is live, its lease ends in 64 min (live)",
            "3: claim by dewey is quiet, no sign of life for 40 min (quiet)",
            "4: owned by darkwing (owned)",
        ]
    );
    // 11:30: dewey's claim expired 85 min ago and is the pick; louie's is past its lease by
    // the log alone, but its heartbeat was not read: unknown, never expired.
    let late = pick::explain_with(rows, "webby", &signs, &t("11:30:00"));
    assert_eq!(late.pick, Some(3));
    assert_eq!(
        late.reclaim.as_ref().map(ToString::to_string).as_deref(),
        Some("claim by dewey expired 85 min ago")
    );
    assert_eq!(
        late.passed[1].1.to_string(),
        "claim by louie: its signs of life cannot be read, so it does not expire"
    );
    assert_eq!(late.passed[1].1.code(), "unknown");
    let next = pick::next_with(rows, "webby", &signs, &t("11:30:00"));
    assert_eq!(next.map(|r| r.id), Some(3));
    // Without the signs nothing is judged: the old answers, word for word.
    assert_eq!(pick::next(rows, "webby"), None);
    assert!(pick::explain(rows, "webby").reclaim.is_none());
    // When the seat's own queued row comes first, the expired claim says so.
    let mut q2 = q.clone();
    let add = serde_json::from_str::<Command>(r#"{"verb":"add","piece":"Mine","owner":"webby"}"#)
        .unwrap();
    q2.execute(&add, "lead-add-mine", "lead", &t("09:21:00"))
        .unwrap();
    let own = pick::explain_with(q2.rows(), "webby", &signs, &t("11:30:00"));
    assert_eq!(own.pick, Some(5));
    assert_eq!(
        own.passed[2].1,
        Why::Expired {
            holder: "dewey".into(),
            minutes: 85,
            first: Some(5)
        }
    );
    assert_eq!(
        own.passed[2].1.to_string(),
        "claim by dewey expired 85 min ago, but row 5 comes first"
    );
}

/// A take that must not reclaim writes nothing: a clock stepped back before the last sign, a
/// heartbeat stamped ahead within the bound (live) or past it (unknown), no heartbeat read.
#[test]
fn takes_that_must_not_reclaim_write_nothing() {
    let q = claimed();
    let at = t("11:30:00");
    for (why, signs, at) in [
        (
            "the clock stepped back before dewey's note",
            Signs::none().with("dewey", &t("09:10:00")),
            t("09:00:00"),
        ),
        (
            "a heartbeat 10 minutes ahead",
            Signs::none().with("dewey", &t("11:40:00")),
            at.clone(),
        ),
        (
            "a heartbeat far ahead",
            Signs::none().with("dewey", "2099-01-01T00:00:00.000Z"),
            at.clone(),
        ),
        ("no heartbeat read", Signs::none(), at.clone()),
        (
            "a heartbeat that is not a time",
            Signs::none().with("dewey", "soon"),
            at.clone(),
        ),
    ] {
        let mut copy = q.clone();
        let cmd = Command::Take(TakeCmd {
            heartbeats: signs,
            ..TakeCmd::default()
        });
        let got = copy.execute(&cmd, "webby-take-0001", "webby", &at).unwrap();
        assert_eq!(got, Outcome::NothingToTake { held: None }, "{why}");
        assert_eq!(copy.to_bytes(), q.to_bytes(), "{why}");
    }
    // The stamp 10 minutes ahead keeps the claim for its lease after the stamp, no longer.
    let ahead = Signs::none().with("dewey", &t("11:40:00"));
    let judged = |now: &str| {
        let row = &q.rows()[2];
        let claim = mosaic_queue_core::signs::Claim::of(row).unwrap();
        mosaic_queue_core::signs::judge(&claim, &ahead.heartbeat("dewey"), now).state
    };
    assert_eq!(judged(&t("12:24:59")), Liveness::Quiet);
    assert_eq!(judged(&t("12:25:00")), Liveness::Expired);
}

/// Each rule replay holds a reclaim to, on entries written by hand after rev 6.
#[test]
fn replay_holds_every_reclaim_to_what_the_log_proves() {
    let q = claimed();
    let ok = |at: &str| {
        let mut copy = q.clone();
        copy.append_entry(
            take(Some(7_200), "dewey", DEWEY_SEEN, 2_700),
            "webby-take-0099",
            "webby",
            at,
            7,
        )
        .map(|_| Queue::verify(&copy.to_bytes()).unwrap().revision())
    };
    // 09:20 plus 45 minutes is 10:05: the last millisecond before it is early.
    assert_eq!(ok(&t("10:05:00")), Ok(7));
    let early = ok("2026-12-01T10:04:59.999Z").unwrap_err();
    assert_eq!(
        early.to_string(),
        "row 3 is reclaimed from dewey at 2026-12-01T10:04:59.999Z, but its lease of 45m counted from 2026-12-01T09:20:00.000Z runs until 2026-12-01T10:05:00.000Z: wait until then, or have the lead, jason or sage run `mosaic-queue reclaim 3 --reason TEXT`"
    );
    let at = t("11:00:00");
    for (args, by, semantics, kind) in [
        (
            take(None, "huey", DEWEY_SEEN, 2_700),
            "webby",
            7,
            "reclaim-not-holder",
        ),
        (
            take(None, "dewey", DEWEY_SEEN, 3_600),
            "webby",
            7,
            "reclaim-lease",
        ),
        (
            take(None, "dewey", &t("09:10:00"), 2_700),
            "webby",
            7,
            "reclaim-sign",
        ),
        (
            take(None, "dewey", DEWEY_SEEN, 2_700),
            "dewey",
            7,
            "reclaim-not-holder",
        ),
        (
            take(Some(59), "dewey", DEWEY_SEEN, 2_700),
            "webby",
            7,
            "lease-range",
        ),
        (
            take(None, "dewey", DEWEY_SEEN, 2_700),
            "webby",
            5,
            "needs-semantics-7",
        ),
        (
            take(None, "dewey", "noon", 2_700),
            "webby",
            7,
            "bad-timestamp",
        ),
    ] {
        assert_eq!(
            refused(&q, args, by, &at, semantics),
            kind,
            "{by} {semantics}"
        );
    }
    // Row 2 is louie's under a lease of 2h: the claim named must be the row's.
    let reclaim = |id: u64, from: &str, lease: Option<u32>| {
        Args::Reclaim(Box::new(ReclaimArgs {
            id,
            from: from.into(),
            seen: None,
            lease,
            reason: "gone".into(),
        }))
    };
    for (args, by, kind) in [
        (reclaim(2, "louie", Some(7_200)), "huey", "not-allowed"),
        (
            reclaim(2, "huey", Some(7_200)),
            "lead",
            "reclaim-not-holder",
        ),
        (reclaim(2, "louie", None), "lead", "reclaim-lease"),
        (reclaim(1, "huey", Some(60)), "lead", "reclaim-lease"),
        (
            Args::LeaseDefault(LeaseDefaultArgs { lease: Some(30) }),
            "lead",
            "lease-range",
        ),
    ] {
        assert_eq!(refused(&q, args, by, &at, 7), kind, "{by}");
    }
    // A privileged reclaim needs no expiry: louie's claim ends at once.
    let mut now = q.clone();
    let receipt = now
        .append_entry(
            reclaim(2, "louie", Some(7_200)),
            "lead-reclaim-1",
            "lead",
            &at,
            7,
        )
        .unwrap();
    assert_eq!(
        receipt,
        "ok lead-reclaim-1 rev 7 reclaim 2 in-progress -> queued, from louie"
    );
    // Once the log holds 7, an entry under an older semantics is refused.
    let note = Args::Note(NoteArgs {
        id: 3,
        text: Some("x".into()),
    });
    assert_eq!(refused(&q, note, "dewey", &at, 5), "semantics-dropped");
}

/// A take that reclaims must be the row `next` names as far as the log knows: not while the
/// seat has a row of its own, a free queued row stands before it, or it waits on an open row.
#[test]
fn a_take_that_reclaims_keeps_nexts_order() {
    let q = claimed();
    let at = t("11:00:00");
    let run = |by: &str, json: &str| {
        let mut copy = q.clone();
        let cmd: Command = serde_json::from_str(json).unwrap();
        copy.execute(&cmd, &format!("{by}-setup-0001"), by, &t("09:30:00"))
            .unwrap();
        copy
    };
    let released = run("huey", r#"{"verb":"release","id":1}"#);
    let waits = run(
        "lead",
        r#"{"verb":"set","id":3,"field":"after","value":[4]}"#,
    );
    let own = run(
        "lead",
        r#"{"verb":"add","piece":"Webby's","owner":"webby"}"#,
    );
    for (name, q) in [
        ("row 1 free", released),
        ("row 3 waits", waits),
        ("own row", own),
    ] {
        let args = take(None, "dewey", DEWEY_SEEN, 2_700);
        assert_eq!(refused(&q, args, "webby", &at, 7), "not-next", "{name}");
    }
}

/// A cut keeps what the claims need in the epoch state: the rows' leases and fences, and the
/// default lease in force; the fenced seat stays fenced and a later reclaim replays.
#[test]
fn a_cut_carries_leases_fences_and_the_default_across_the_epoch() {
    let head = leases(usize::MAX);
    let CutOutcome::Planned(cut) = head
        .plan_archive(10, "lead-cut-0001", "lead", &t("14:10:00"))
        .unwrap()
    else {
        panic!("planned");
    };
    let file = parse_queue(&cut.queue.to_bytes()).unwrap();
    let epoch = file.epoch().unwrap();
    assert_eq!(epoch.state.lease_default, Some(7_200));
    let kept = |id: u64| epoch.state.rows.iter().find(|r| r.id == id).unwrap();
    let row3 = kept(3);
    assert_eq!(
        (
            row3.owner.as_deref(),
            row3.lease.as_ref().map(|l| l.seconds)
        ),
        (Some("webby"), Some(7_200))
    );
    assert_eq!(row3.fenced[0].seat, "dewey");
    assert_eq!(file.log.last().unwrap().semantics, 7, "the archive entry");
    let mut queue = cut.queue.clone();
    verify_full(&[&cut.archive_bytes], &queue.to_bytes()).unwrap();
    let note = Command::Note(NoteArgs {
        id: 3,
        text: Some("still here".into()),
    });
    let fenced = queue
        .execute(&note, "dewey-note-0009", "dewey", &t("14:20:00"))
        .unwrap_err();
    assert_eq!(
        fenced.to_string(),
        "row 3 was reclaimed from dewey at rev 9 and webby holds it since rev 9: dewey's changes to it are refused (retries of its earlier ops still answer); `mosaic-queue take` finds other work"
    );
    // Webby's claim (2h from 10:30) expires at 12:30; a heartbeat read at 12:00 makes it
    // reclaimable at 14:30.
    let cmd = Command::Take(TakeCmd {
        heartbeats: Signs::none().with("webby", &t("12:00:00")),
        ..TakeCmd::default()
    });
    let got = queue
        .execute(&cmd, "scrooge-take-0001", "scrooge", &t("14:30:00"))
        .unwrap();
    assert_eq!(
        got.receipt(),
        "ok scrooge-take-0001 rev 16 take 3 reclaimed from webby (last sign of life 2026-12-01T12:00:00.000Z, lease 2h)"
    );
    let again = Queue::verify(&queue.to_bytes()).unwrap();
    assert_eq!(again.rows(), queue.rows());
    verify_full(&[&cut.archive_bytes], &queue.to_bytes()).unwrap();
    assert!(matches!(
        queue.execute(&note, "dewey-note-0009", "dewey", &t("14:40:00")),
        Err(VerbError::Claim(_))
    ));
}
