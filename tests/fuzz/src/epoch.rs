//! The epoch entry's arguments (semantics 6), put in place of those of fixtures/epochs'
//! queue.json (the archive entry's epochSha made to match, as a careful hand edit would).
//! Invariants: whatever `verify` accepts re-serializes to itself, keeps no archived row and
//! refuses every archived id as archived; the next `add` gives an id no archive holds and
//! writes a file that verifies; and `verify_full` with the fixture's archives accepts only the
//! entry the cut wrote.

use mosaic_queue_core::{
    Args, Command, EpochArgs, Outcome, Queue, QueueFile, VerbError, parse_lenient, parse_queue,
    sha256_hex, to_canonical, verify_full,
};

const QUEUE: &[u8] = include_bytes!("../../../fixtures/epochs/queue.json");
const ARCHIVES: [&[u8]; 2] = [
    include_bytes!("../../../fixtures/epochs/archive/epoch-0001.json"),
    include_bytes!("../../../fixtures/epochs/archive/epoch-0002.json"),
];

/// Most archived ids one input's check looks up (the ranges may span billions).
const LOOKUPS: u64 = 512;

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(args) = parse_lenient::<EpochArgs>(bytes) else {
        return;
    };
    let golden = parse_queue(QUEUE).expect("the fixture parses");
    let mut file: QueueFile = golden.clone();
    file.log[0].args = Args::Epoch(Box::new(args.clone()));
    let pinned = sha256_hex(&serde_json::to_vec(&file.log[0]).expect("entries serialize"));
    let last = file.log.len() - 1;
    if let Args::Archive(a) = &mut file.log[last].args {
        a.epoch_sha = pinned;
    }
    let text = to_canonical(&file);
    let Ok(queue) = Queue::verify(&text) else {
        return;
    };
    assert!(
        queue.to_bytes() == text,
        "accepted bytes re-serialize otherwise"
    );
    let mut top = 0;
    for row in queue.rows() {
        assert!(queue.state().row(row.id).is_ok());
        assert_eq!(
            queue.archive_of_row(row.id),
            None,
            "row {} kept and archived",
            row.id
        );
        top = top.max(row.id);
    }
    let mut looked = 0;
    for info in &args.archives {
        for range in &info.rows {
            top = top.max(range[1]);
            for id in range[0]..=range[1].min(range[0].saturating_add(LOOKUPS)) {
                looked += 1;
                if looked > LOOKUPS {
                    break;
                }
                let err = queue
                    .state()
                    .row(id)
                    .expect_err("an archived id answers a row");
                assert!(matches!(err, VerbError::RowArchived { id: i, .. } if i == id));
            }
        }
    }
    let mut next = queue.clone();
    let add: Command = serde_json::from_str(r#"{"verb":"add","piece":"Fuzzed"}"#).unwrap();
    match next.execute(&add, "lead-add-fuzz", "lead", "2026-12-02T00:00:00.000Z") {
        Ok(Outcome::Applied { .. }) => {
            let id = next.rows().last().expect("the add made a row").id;
            assert!(id > top, "add gave {id}, not above every id given ({top})");
            Queue::verify(&next.to_bytes()).expect("an add after the epoch verifies");
        }
        // Only an id past what queue.json can hold is refused.
        Err(VerbError::NumberTooLarge { .. } | VerbError::EpochEntry { .. }) => {}
        other => panic!("an add after the epoch answered {other:?}"),
    }
    if verify_full(&ARCHIVES, &text).is_ok() {
        assert_eq!(
            file.log[0], golden.log[0],
            "verify --full accepted another epoch"
        );
    }
}
