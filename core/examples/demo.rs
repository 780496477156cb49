//! The core's demo: a built-in migration map goes through genesis and a few seats' ops, and the
//! resulting `docs/plans/queue.json` and `QUEUE.md` are written to a scratch folder, read back
//! and verified. Run: `cargo run -q -p mosaic-queue-core --example demo`.

use std::fs;
use std::path::PathBuf;

use mosaic_queue_core::entry::{MoveArgs, NoteArgs};
use mosaic_queue_core::verbs::{Command, NewRow};
use mosaic_queue_core::{Queue, Status, map, table};

const MAP: &str = "\
# Queue migration map

source: docs/plans/QUEUE.md blob 3b18e512dba79e4c8300dd08aeb37f8e728b8dad

| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Queue as data | darkwing | in-progress | jason | #1508 | section 8 of the plan |
| 2 | Review requests | | queued | | #1510, #1511 | piece D |
| 3 | Dispatcher cleanup | flicker | blocked | | #1499 | |
| 4 | Old dashboard | | parked | | | |
";

const QUEUE_MD: &str = "\
# Queue

Hand-written header: how the team uses this table.

<!-- mosaic-queue:begin -->
(legacy table)
<!-- mosaic-queue:end -->
";

fn main() {
    let map = map::parse(MAP).expect("the built-in map parses");
    let dir = std::env::temp_dir().join(format!("mosaic-queue-demo-{}", std::process::id()));
    let root = dir.to_string_lossy().into_owned();
    let args = map.genesis_args("main", &root, QUEUE_MD).expect("markers");
    let mut clock = 0;
    let mut at = || {
        clock += 1;
        format!("2026-11-29T09:00:{clock:02}.000Z")
    };
    let (mut queue, receipt) =
        Queue::genesis(args, "jason-genesis-demo", "jason", &at()).expect("genesis");
    println!("{receipt}");

    let steps: Vec<(&str, &str, Command)> = vec![
        (
            "darkwing-2-start-1",
            "darkwing",
            mv(2, Status::InProgress, None),
        ),
        (
            "lead-add-node-shim",
            "lead",
            Command::Add(NewRow {
                piece: "Node shim".into(),
                owner: None,
                status: Status::Queued,
                gate: None,
                issues: vec![1520],
                reviewers: vec![],
                brief: None,
                note: Some("after the core".into()),
            }),
        ),
        (
            "darkwing-1-block-1",
            "darkwing",
            mv(1, Status::Blocked, Some("waiting on the host")),
        ),
        (
            "flicker-3-note-1",
            "flicker",
            Command::Note(NoteArgs {
                id: 3,
                text: Some("unblocked once #1508 lands".into()),
            }),
        ),
        // A refusal: flicker does not own row 2.
        (
            "flicker-2-review-1",
            "flicker",
            mv(2, Status::InReview, None),
        ),
        // A retry of an acknowledged op answers with the original receipt.
        (
            "darkwing-2-start-1",
            "darkwing",
            mv(2, Status::InProgress, None),
        ),
    ];
    for (op, by, cmd) in steps {
        match queue.execute(&cmd, op, by, &at()) {
            Ok(outcome) => println!("{}", outcome.receipt()),
            Err(e) => println!("refused ({}): {e}", e.kind()),
        }
    }

    let plans = dir.join("docs/plans");
    fs::create_dir_all(&plans).expect("scratch folder");
    let json_path: PathBuf = plans.join("queue.json");
    let md_path = plans.join("QUEUE.md");
    fs::write(&json_path, queue.to_bytes()).expect("write queue.json");
    let md = table::splice(QUEUE_MD, &queue.render_body()).expect("markers");
    fs::write(&md_path, &md).expect("write QUEUE.md");

    let bytes = fs::read(&json_path).expect("read back");
    let verified = Queue::verify(&bytes).expect("the written file verifies");
    let written_md = fs::read_to_string(&md_path).expect("read back");
    let status = verified.body_status(table::body(&written_md).expect("markers"));
    println!();
    println!("{}", written_md.trim_end());
    println!();
    println!(
        "verify: ok rev {} ({} log entries, table {status:?})",
        verified.revision(),
        verified.file().log.len()
    );
    println!("files: {}", plans.display());
    if let Some(row) = verified.next("darkwing") {
        println!("next for darkwing: row {} ({})", row.id, row.piece);
    }
}

fn mv(id: u64, to: Status, reason: Option<&str>) -> Command {
    Command::Move(MoveArgs {
        id,
        to,
        reason: reason.map(Into::into),
        candidate: (to == Status::InReview).then(|| format!("sha256:{}", "a".repeat(64))),
        issue: None,
        evidence: None,
    })
}
