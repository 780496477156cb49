//! `prime` stays within its documented size (6,000 bytes, text or `--json`) whatever the queue
//! holds: long pieces, pieces of four-byte characters, a row waiting on 64 others, 40 review
//! rounds on the row `next` names, and an `after` list of 20,000 rows that older entries could
//! write. Each output says what it left out and which command shows it, and the JSON stays one
//! document with a `cut` member.

use mosaic_queue_core::{
    AddArgs, Args, Command, MoveArgs, NewRow, Queue, SetArgs, SetField, SetValue, Status,
};
use serde_json::{Value, json};
use support::Repo;

const QUEUE: &str = "docs/plans/queue.json";

/// The cap docs/coordination.md gives.
const CAP: usize = 6_000;

/// Applies `edit` to queue.json in-process (many commands at once, as seats would run them),
/// writes the file and makes it durable with `sync`.
fn edit(repo: &Repo, edit: impl FnOnce(&mut Queue, &str)) {
    let mut q = Queue::verify(&repo.read_bytes(QUEUE)).unwrap();
    let at = q.file().log.last().unwrap().at.clone();
    edit(&mut q, &at);
    repo.write(QUEUE, q.to_bytes());
    repo.run(&["sync"], &[]).ok();
}

fn run(q: &mut Queue, cmd: Command, op: &str, by: &str, at: &str) {
    q.execute(&cmd, op, by, at)
        .unwrap_or_else(|e| panic!("{op}: {e}"));
}

fn add(piece: &str, owner: Option<&str>) -> Command {
    Command::Add(NewRow {
        piece: piece.to_owned(),
        owner: owner.map(str::to_owned),
        status: Status::Queued,
        gate: None,
        issues: Vec::new(),
        reviewers: Vec::new(),
        brief: None,
        note: None,
        after: Vec::new(),
    })
}

fn set_after(id: u64, after: &[u64]) -> Command {
    Command::Set(SetArgs {
        id,
        field: SetField::After,
        value: SetValue::Numbers(after.to_vec()),
        reason: None,
    })
}

fn to(id: u64, status: Status, candidate: Option<String>) -> Command {
    Command::Move(MoveArgs {
        id,
        to: status,
        reason: None,
        candidate,
        manifest: None,
        issue: None,
        evidence: None,
        lease: None,
    })
}

/// `prime SEAT` as text and as `--json`, each held to the cap; the JSON parsed.
fn prime(repo: &Repo, seat: &str) -> (String, Value) {
    let text = repo.run(&["prime", seat], &[]).ok().to_owned();
    let json = repo.run(&["prime", seat, "--json"], &[]).ok().to_owned();
    assert!(text.len() <= CAP, "text: {} bytes\n{text}", text.len());
    assert!(json.len() <= CAP, "json: {} bytes\n{json}", json.len());
    (text, serde_json::from_str(&json).unwrap())
}

/// The part of the text between the header and the rules: what the queue's shape changes.
fn middle(text: &str) -> &str {
    let start = text.find("\nYour open rows:\n").unwrap();
    let end = text.find("\nRules:\n").unwrap();
    &text[start + 1..end]
}

#[test]
fn long_pieces_are_shortened_and_said_to_be() {
    let repo = Repo::new("prime-long");
    // darkwing owns fifteen rows, fourteen of them with 500-character pieces.
    edit(&repo, |q, at| {
        for n in 0..14 {
            let piece = format!("Long piece {n:02} {}", "x".repeat(486));
            run(
                q,
                add(&piece, Some("darkwing")),
                &format!("lead-long-{n:04}"),
                "lead",
                at,
            );
        }
    });
    let (text, json) = prime(&repo, "darkwing");
    let long = |id: u64| format!("Long piece {:02} {}…", id - 4, "x".repeat(65));
    let mut rows = String::from("  row 1 Parser: queued\n");
    for id in 4..=14 {
        rows.push_str(&format!("  row {id} {}: queued\n", long(id)));
    }
    assert_eq!(
        middle(&text),
        format!(
            "Your open rows:\n{rows}  ... and 3 more (mosaic-queue list)\n\n\
             Next: row 1 Parser (queued, yours): `mosaic-queue take --op OP --by darkwing` claims it.\n\
             Passed over:\n  row 3: parked\n\
             Shortened to fit: #4, #5, #6, #7, #8, #9, #10, #11, #12, #13, #14 (mosaic-queue show ID prints a row whole)\n"
        )
    );
    assert_eq!(text.len(), 3189);
    assert_eq!(
        json["rows"][1],
        json!({"id": 4, "piece": long(4), "status": "queued", "waitsOn": [], "waitsOnMore": 0})
    );
    assert_eq!(json["rows"].as_array().unwrap().len(), 12);
    assert_eq!(
        json["cut"],
        json!({
            "rows": 3,
            "passed": 0,
            "shortened": [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
            "commands": [
                "mosaic-queue list",
                "mosaic-queue show 4", "mosaic-queue show 5", "mosaic-queue show 6",
                "mosaic-queue show 7", "mosaic-queue show 8", "mosaic-queue show 9",
                "mosaic-queue show 10", "mosaic-queue show 11", "mosaic-queue show 12",
                "mosaic-queue show 13", "mosaic-queue show 14"
            ]
        })
    );
    // A queue with nothing to leave out says so: `cut` is null and the text has no such line.
    let (text, json) = prime(&repo, "huey");
    assert_eq!(
        json["cut"],
        json!({"rows": 0, "passed": 4, "shortened": [], "commands": ["mosaic-queue next huey --explain"]})
    );
    assert!(
        text.contains("  ... and 4 more (mosaic-queue next huey --explain)\n"),
        "{text}"
    );
    let fresh = Repo::new("prime-fresh");
    let (text, json) = prime(&fresh, "darkwing");
    assert_eq!(json["cut"], Value::Null);
    assert!(
        !text.contains("Shortened") && !text.contains("more ("),
        "{text}"
    );
}

#[test]
fn pieces_of_wide_characters_leave_rows_out_to_fit() {
    let repo = Repo::new("prime-wide");
    // Four bytes a character: twelve 80-character pieces alone would pass the cap.
    edit(&repo, |q, at| {
        for n in 0..14 {
            let piece = format!("{n:02} {}", "\u{1D11E}".repeat(400));
            run(
                q,
                add(&piece, Some("darkwing")),
                &format!("lead-wide-{n:04}"),
                "lead",
                at,
            );
        }
    });
    let (text, json) = prime(&repo, "darkwing");
    // The JSON's quotes and keys take more room: it sets how many rows both forms list. The
    // passed-over row goes first, then the seat's last rows, each counted and pointed to.
    let wide = |id: u64| format!("{:02} {}…", id - 4, "\u{1D11E}".repeat(76));
    let mut rows = String::from("  row 1 Parser: queued\n");
    for id in 4..=10 {
        rows.push_str(&format!("  row {id} {}: queued\n", wide(id)));
    }
    assert_eq!(
        middle(&text),
        format!(
            "Your open rows:\n{rows}  ... and 7 more (mosaic-queue list)\n\n\
             Next: row 1 Parser (queued, yours): `mosaic-queue take --op OP --by darkwing` claims it.\n\
             Passed over:\n  ... and 1 more (mosaic-queue next darkwing --explain)\n\
             Shortened to fit: #4, #5, #6, #7, #8, #9, #10 (mosaic-queue show ID prints a row whole)\n"
        )
    );
    assert_eq!(json["rows"].as_array().unwrap().len(), 8);
    assert_eq!(json["rows"][7]["piece"], wide(10));
    assert_eq!(json["passed"], json!([]));
    assert_eq!(
        json["cut"],
        json!({
            "rows": 7,
            "passed": 1,
            "shortened": [4, 5, 6, 7, 8, 9, 10],
            "commands": [
                "mosaic-queue list",
                "mosaic-queue next darkwing --explain",
                "mosaic-queue show 4", "mosaic-queue show 5", "mosaic-queue show 6",
                "mosaic-queue show 7", "mosaic-queue show 8", "mosaic-queue show 9",
                "mosaic-queue show 10"
            ]
        })
    );
    let json_bytes = repo.run(&["prime", "darkwing", "--json"], &[]).stdout.len();
    assert_eq!((text.len(), json_bytes), (4405, 5536));
}

#[test]
fn a_row_waiting_on_64_rows_names_eight() {
    let repo = Repo::new("prime-deps");
    // Rows 4 (darkwing's) and 5 (unowned) come first, then wait on the 64 rows after them.
    edit(&repo, |q, at| {
        run(
            q,
            add("Waits", Some("darkwing")),
            "lead-waits-0001",
            "lead",
            at,
        );
        run(q, add("Waits too", None), "lead-waits-0002", "lead", at);
        for n in 0..64 {
            run(
                q,
                add(&format!("Dep {n}"), Some("louie")),
                &format!("lead-dep-{n:04}"),
                "lead",
                at,
            );
        }
        let deps: Vec<u64> = (6..70).collect();
        run(q, set_after(4, &deps), "lead-after-0001", "lead", at);
        run(q, set_after(5, &deps), "lead-after-0002", "lead", at);
    });
    let (text, json) = prime(&repo, "darkwing");
    assert_eq!(
        middle(&text),
        "Your open rows:\n  row 1 Parser: queued\n  \
         row 4 Waits: queued (waits on #6, #7, #8, #9, #10, #11, #12, #13 and 56 more)\n\n\
         Next: row 1 Parser (queued, yours): `mosaic-queue take --op OP --by darkwing` claims it.\n\
         Passed over:\n  row 3: parked\n  \
         row 4: waiting on #6, #7, #8, #9, #10, #11, #12, #13 and 56 more\n  \
         row 5: waiting on #6, #7, #8, #9, #10, #11, #12, #13 and 56 more\n  \
         row 6: owned by louie\n  row 7: owned by louie\n  row 8: owned by louie\n  \
         row 9: owned by louie\n  row 10: owned by louie\n  row 11: owned by louie\n  \
         row 12: owned by louie\n  row 13: owned by louie\n  row 14: owned by louie\n  \
         ... and 55 more (mosaic-queue next darkwing --explain)\n\
         Shortened to fit: #4, #5 (mosaic-queue show ID prints a row whole)\n"
    );
    assert_eq!(
        json["rows"][1],
        json!({"id": 4, "piece": "Waits", "status": "queued", "waitsOn": [6, 7, 8, 9, 10, 11, 12, 13], "waitsOnMore": 56})
    );
    assert_eq!(
        json["passed"][2],
        json!({"id": 5, "why": "waiting on #6, #7, #8, #9, #10, #11, #12, #13 and 56 more"})
    );
    assert_eq!(
        json["cut"],
        json!({
            "rows": 0,
            "passed": 55,
            "shortened": [4, 5],
            "commands": [
                "mosaic-queue next darkwing --explain",
                "mosaic-queue show 4",
                "mosaic-queue show 5"
            ]
        })
    );
}

#[test]
fn forty_review_rounds_on_the_next_row_stay_out_of_prime() {
    let repo = Repo::new("prime-rounds");
    edit(&repo, |q, at| {
        run(
            q,
            to(2, Status::InProgress, None),
            "huey-2-start-0001",
            "huey",
            at,
        );
        for round in 1..=40u64 {
            let candidate = Some(format!("git:{round:040x}"));
            run(
                q,
                to(2, Status::InReview, candidate),
                &format!("huey-2-review-{round}"),
                "huey",
                at,
            );
            run(
                q,
                to(2, Status::InProgress, None),
                &format!("huey-2-back-{round}"),
                "huey",
                at,
            );
        }
    });
    assert_eq!(
        repo.row(2)["review"]["rounds"].as_array().unwrap().len(),
        40
    );
    let (text, json) = prime(&repo, "huey");
    assert_eq!(
        json["next"],
        json!({"id": 2, "piece": "Render", "status": "in-progress", "owner": "huey"})
    );
    assert_eq!(json["cut"], Value::Null);
    assert!(
        text.contains("\nNext: row 2 Render, already in progress for you: carry on with it.\n"),
        "{text}"
    );
    // `show` has the whole row.
    let out = repo.run(&["show", "2", "--json"], &[]);
    let row: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(row["row"]["review"]["rounds"].as_array().unwrap().len(), 40);
}

#[test]
fn an_after_list_of_20000_rows_from_older_entries_is_named_in_part() {
    const ROWS: u64 = 20_000;
    let repo = Repo::bare("prime-20000");
    let map = repo.map_path();
    let text = std::fs::read_to_string(&map).unwrap();
    let (head, _) = text.split_once("| # |").unwrap();
    let mut table = String::from(
        "| # | Piece | Owner | Status | Gate | Issues | Note |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for id in 1..=ROWS {
        table.push_str(&format!("| {id} | Piece {id} | louie | queued | | | |\n"));
    }
    std::fs::write(&map, format!("{head}{table}")).unwrap();
    repo.genesis().ok();
    // Entries under semantics 3 held no cap on a row's dependencies.
    edit(&repo, |q, at| {
        let all: Vec<u64> = (1..=ROWS).collect();
        for (n, owner) in [(1, Some("darkwing")), (2, None)] {
            let args = Args::Add(Box::new(AddArgs {
                id: ROWS + n,
                piece: format!("Waits on all {n}"),
                owner: owner.map(str::to_owned),
                status: Status::Queued,
                gate: None,
                issues: Vec::new(),
                reviewers: Vec::new(),
                brief: None,
                note: None,
                after: all.clone(),
            }));
            q.append_entry(args, &format!("lead-all-{n:04}"), "lead", at, 3)
                .unwrap();
        }
    });
    let (text, json) = prime(&repo, "darkwing");
    assert_eq!(
        middle(&text),
        "Your open rows:\n  \
         row 20001 Waits on all 1: queued (waits on #1, #2, #3, #4, #5, #6, #7, #8 and 19992 more)\n\n\
         Next: nothing to take up now.\n\
         Passed over:\n  row 1: owned by louie\n  row 2: owned by louie\n  row 3: owned by louie\n  \
         row 4: owned by louie\n  row 5: owned by louie\n  row 6: owned by louie\n  \
         row 7: owned by louie\n  row 8: owned by louie\n  row 9: owned by louie\n  \
         row 10: owned by louie\n  row 11: owned by louie\n  row 12: owned by louie\n  \
         ... and 19990 more (mosaic-queue next darkwing --explain)\n\
         Shortened to fit: #20001 (mosaic-queue show ID prints a row whole)\n"
    );
    assert_eq!(json["rows"][0]["waitsOnMore"], 19_992);
    assert_eq!(
        json["cut"],
        json!({
            "rows": 0,
            "passed": 19_990,
            "shortened": [20_001],
            "commands": ["mosaic-queue next darkwing --explain", "mosaic-queue show 20001"]
        })
    );
}
