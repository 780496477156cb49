//! fixtures/epochs: a golden queue cut twice (the review scenario cut before rev 12, then at
//! its head) with its two archives, a base from before the cuts, and hand edits of the cut
//! file or an archive, each with what `verify` and `verify --full` must answer. Built here and
//! compared byte for byte with the checked-in files, which this test never writes (a mismatch
//! leaves the build's bytes in the test scratch folder, see `common::checked_in`); the Node
//! tests read the same files.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mosaic_queue_core::{
    Args, CutOutcome, EpochArgs, Queue, QueueFile, parse_queue, sha256_hex, to_canonical,
    verify_full,
};
use serde::Serialize;

const AT: &str = "2026-12-01T00:00:00.000Z";

fn dir() -> PathBuf {
    common::fixtures().join("epochs")
}

/// Compares `actual` with the checked-in fixtures/epochs/<rel>.
fn golden(rel: &str, actual: &[u8]) {
    common::checked_in(&dir().join(rel), actual);
}

/// The review scenario replayed; its bytes at rev 5 (the base); the queue cut twice, with its
/// archives.
fn build() -> (Vec<u8>, Queue, Vec<Vec<u8>>) {
    let sc = common::load_scenario("review");
    let g = &sc.genesis;
    let (mut queue, _) = Queue::genesis(g.args.clone(), &g.op, &g.by, &g.at).unwrap();
    let mut base = Vec::new();
    for step in &sc.steps {
        let _ = match step.semantics {
            None => queue
                .execute(&step.command, &step.op, &step.by, &step.at)
                .map(drop),
            Some(sem) => step
                .command
                .normalize(queue.state(), queue.revision() + 1, &step.by, &step.at)
                .and_then(|a| queue.append_entry(a, &step.op, &step.by, &step.at, sem))
                .map(drop),
        };
        if queue.revision() == 5 && base.is_empty() {
            base = queue.to_bytes();
        }
    }
    let mut archives = Vec::new();
    for (before, op) in [
        (12, "sage-cut-0001"),
        (queue.revision() + 2, "sage-cut-0002"),
    ] {
        // The second cut stands at the first one's archive entry, the head.
        let before = before.min(queue.revision() + 1);
        let Ok(CutOutcome::Planned(cut)) = queue.plan_archive(before, op, "sage", AT) else {
            panic!("cut before {before}");
        };
        archives.push(cut.archive_bytes);
        queue = cut.queue;
    }
    (base, queue, archives)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Expected {
    why: &'static str,
    /// The archives `verify --full` takes with it, as paths under fixtures/epochs.
    archives: Vec<String>,
    verify: &'static str,
    verify_full: &'static str,
}

/// The cut file with `edit` made to its epoch entry; `pin` also rewrites the archive entry's
/// epochSha to match, as a careful hand edit would.
fn epoch_edit(file: &QueueFile, pin: bool, edit: impl Fn(&mut EpochArgs)) -> Vec<u8> {
    let mut f = file.clone();
    let Args::Epoch(e) = &mut f.log[0].args else {
        panic!("an epoch entry first")
    };
    edit(e);
    if pin {
        let sha = sha256_hex(&serde_json::to_vec(&f.log[0]).unwrap());
        let last = f.log.len() - 1;
        let Args::Archive(a) = &mut f.log[last].args else {
            panic!("the archive entry last")
        };
        a.epoch_sha = sha;
    }
    to_canonical(&f)
}

fn bad_files(file: &QueueFile, archives: &[Vec<u8>]) -> Vec<(&'static str, Vec<u8>, Expected)> {
    let good = || {
        vec![
            "archive/epoch-0001.json".to_owned(),
            "archive/epoch-0002.json".to_owned(),
        ]
    };
    let expect = |why, verify, verify_full| Expected {
        why,
        archives: good(),
        verify,
        verify_full,
    };
    let mut no_archive_entry = file.clone();
    no_archive_entry.log.pop();
    no_archive_entry.revision -= 1;
    let mut edited_archive = parse_queue(&archives[0]).unwrap();
    edited_archive.log[2].at = "2026-11-02T10:30:00.000Z".into();
    vec![
        (
            "epoch-state-edited.json",
            epoch_edit(file, true, |e| e.state.spent += 1),
            expect(
                "the epoch state's spent steps raised, epochSha made to match",
                "ok",
                "epoch-mismatch",
            ),
        ),
        (
            "epoch-digest-edited.json",
            epoch_edit(file, true, |e| e.digest = "0".repeat(64)),
            expect(
                "the epoch's chain digest zeroed, epochSha made to match",
                "ok",
                "epoch-mismatch",
            ),
        ),
        (
            "epoch-filter-edited.json",
            epoch_edit(file, true, |e| e.archives[0].ops.bits[0] ^= 1),
            expect(
                "a bit of archive 1's op filter flipped, epochSha made to match",
                "ok",
                "epoch-mismatch",
            ),
        ),
        (
            "epoch-rows-edited.json",
            epoch_edit(file, true, |e| e.archives[0].rows.clear()),
            expect(
                "archive 1's row ranges emptied (its rows unarchived), epochSha made to match",
                "ok",
                "epoch-mismatch",
            ),
        ),
        (
            "epoch-unpinned.json",
            epoch_edit(file, false, |e| e.state.spent += 1),
            expect(
                "the epoch state edited, epochSha left as it was",
                "entry-refused",
                "entry-refused",
            ),
        ),
        (
            "epoch-digest-malformed.json",
            epoch_edit(file, true, |e| e.digest = "zz".into()),
            expect(
                "the epoch's digest is not 64 hex digits",
                "epoch-malformed",
                "epoch-malformed",
            ),
        ),
        (
            "epoch-keeps-archived-row.json",
            epoch_edit(file, true, |e| {
                let mut row = e.state.rows[0].clone();
                row.id = e.archives[0].rows[0][0];
                e.state.rows.push(row);
            }),
            expect(
                "the epoch state keeps a row archive 1 holds",
                "epoch-malformed",
                "epoch-malformed",
            ),
        ),
        (
            "no-archive-entry.json",
            to_canonical(&no_archive_entry),
            expect(
                "the archive entry removed, revision lowered to match",
                "no-archive-entry",
                "no-archive-entry",
            ),
        ),
        (
            "archive-0001-edited.json",
            to_canonical(&edited_archive),
            Expected {
                why: "archive 1 with the time of rev 3 changed: it replays, but is not what the cut wrote",
                archives: vec![
                    "bad/archive-0001-edited.json".into(),
                    "archive/epoch-0002.json".into(),
                ],
                verify: "ok",
                verify_full: "epoch-mismatch",
            },
        ),
    ]
}

/// What `f` answers: "ok" or the error's kind.
fn kind<T, E: std::fmt::Display>(r: Result<T, E>, kind: impl Fn(&E) -> &'static str) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => kind(&e).into(),
    }
}

#[test]
fn the_epoch_fixtures_are_what_the_core_builds_and_answers() {
    let (base, queue, archives) = build();
    let bytes = queue.to_bytes();
    golden("queue.json", &bytes);
    golden("body.md", queue.render_body().as_bytes());
    golden("base.json", &base);
    for (k, a) in archives.iter().enumerate() {
        golden(&format!("archive/epoch-{:04}.json", k + 1), a);
    }
    let refs: Vec<&[u8]> = archives.iter().map(Vec::as_slice).collect();
    verify_full(&refs, &bytes).unwrap();
    let file = parse_queue(&bytes).unwrap();
    let mut expected = BTreeMap::new();
    for (name, data, want) in bad_files(&file, &archives) {
        golden(&format!("bad/{name}"), &data);
        // The bad archive is checked as archive 1 beside the good queue.
        let (active, list): (&[u8], Vec<&[u8]>) = if name.starts_with("archive-") {
            (&bytes, vec![&data, &archives[1]])
        } else {
            (&data, refs.clone())
        };
        let subject = if name.starts_with("archive-") {
            &data
        } else {
            active
        };
        assert_eq!(
            kind(Queue::verify(subject), |e| e.kind()),
            want.verify,
            "{name}: verify"
        );
        assert_eq!(
            kind(verify_full(&list, active), |e| e.kind()),
            want.verify_full,
            "{name}: verify --full"
        );
        expected.insert(name, want);
    }
    let mut text = serde_json::to_vec_pretty(&expected).unwrap();
    text.push(b'\n');
    golden("expected.json", &text);
}
