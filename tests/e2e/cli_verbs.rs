//! Every verb the CLI has, driven through the real binary in a scratch canonical checkout:
//! exact receipts and read output, the rows and table they leave on disk, retries by op id,
//! and the actor rule (`--by` over `$MOSAIC_AGENT_NAME`).

use support::{GENESIS_BODY, QUEUE_MD, Repo, change, ok};

const DW: &[&str] = &["--by", "darkwing"];

/// QUEUE.md as the hand-written text around `body`.
fn table_with(body: &str) -> String {
    let (head, rest) = QUEUE_MD
        .split_once("<!-- mosaic-queue:begin -->\n")
        .unwrap();
    let (_, tail) = rest.split_once("<!-- mosaic-queue:end -->").unwrap();
    format!("{head}<!-- mosaic-queue:begin -->\n{body}<!-- mosaic-queue:end -->{tail}")
}

#[test]
fn genesis_keeps_the_hand_written_text_and_writes_the_witness() {
    let repo = Repo::bare("genesis");
    let blob = repo.git(&["hash-object", "docs/plans/QUEUE.md"]);
    let out = repo.genesis();
    assert_eq!(
        out.ok(),
        format!(
            "ok genesis-0001 rev 1 genesis 3 rows on main from blob {}\n",
            &blob[..12]
        )
    );
    assert_eq!(repo.read("docs/plans/QUEUE.md"), table_with(GENESIS_BODY));

    let q = repo.queue();
    assert_eq!(q["version"], 1);
    assert_eq!(q["canonicalRoot"], repo.root.to_str().unwrap());
    assert_eq!(q["revision"], 1);
    let entry = &q["log"][0];
    assert_eq!(
        (&entry["op"], &entry["verb"], &entry["by"]),
        (&"genesis-0001".into(), &"genesis".into(), &"jason".into())
    );
    assert_eq!(entry["args"]["branch"], "main");
    assert_eq!(entry["args"]["source"], blob.as_str());
    assert_eq!(
        entry["args"]["legacyView"],
        "| # | What | Who |\n| 1 | parser | darkwing |\nlegacy text kept as the legacy view\n"
    );
    // Genesis: closes equal to issues, not narrowed.
    let row = repo.row(1);
    assert_eq!(row["closes"], row["issues"]);
    assert_eq!(row["closesNarrowed"], false);

    let witness = repo.witness().expect("genesis writes the witness");
    assert_eq!(witness["revision"], 1);
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 1 (1 entries, witness rev 1)\n"
    );
}

#[test]
fn list_show_and_next_print_the_rows() {
    let repo = Repo::new("reads");
    assert_eq!(
        repo.run(&["list"], &[]).ok(),
        format!("rev 1\n{GENESIS_BODY}")
    );
    let row1 = "row 1: Parser
  status: queued
  owner: darkwing
  gate: -
  issues: #12, #14
  closes: #12, #14
  reviewers: -
  brief: -
  note: first
  rev: 1
";
    assert_eq!(repo.run(&["show", "1"], &[]).ok(), row1);
    // A seat's own queued row comes before unowned ones.
    assert_eq!(repo.run(&["next", "darkwing"], &[]).ok(), row1);
    let row2 = "row 2: Render
  status: queued
  owner: -
  gate: jason
  issues: #20
  closes: #20
  reviewers: -
  brief: -
  note: -
  rev: 1
";
    assert_eq!(repo.run(&["next", "zed"], &[]).ok(), row2);
    // No SEAT: $MOSAIC_AGENT_NAME names it.
    assert_eq!(
        repo.run(&["next"], &[("MOSAIC_AGENT_NAME", "zed")]).ok(),
        row2
    );
    ok(
        &repo,
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress",
    );
    // darkwing's in-progress row comes before its queued one; zed has nothing left.
    assert!(
        repo.run(&["next", "darkwing"], &[])
            .ok()
            .starts_with("row 2: Render\n  status: in-progress\n  owner: darkwing\n")
    );
    assert_eq!(
        repo.run(&["next", "zed"], &[]).ok(),
        "nothing for zed to take up\n"
    );
}

#[test]
fn json_reads_are_one_document_with_revision_and_durability() {
    let repo = Repo::new("json");
    let out = repo.run(&["list", "--json"], &[]);
    let list: serde_json::Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(list["revision"], 1);
    assert_eq!(list["durable"], true);
    assert_eq!(list["rows"], repo.queue()["rows"]);
    assert_eq!(
        list.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["durable", "revision", "rows"]
    );
    // The exact canonical layout, key order included.
    let show2 = r#"{
  "revision": 1,
  "durable": true,
  "row": {
    "id": 2,
    "piece": "Render",
    "owner": null,
    "status": "queued",
    "gate": "jason",
    "issues": [
      20
    ],
    "closes": [
      20
    ],
    "closesNarrowed": false,
    "reviewers": [],
    "brief": null,
    "note": null,
    "blockedReason": null,
    "review": null
  }
}
"#;
    assert_eq!(repo.run(&["show", "2", "--json"], &[]).ok(), show2);
    assert_eq!(repo.run(&["next", "zed", "--json"], &[]).ok(), show2);
    ok(
        &repo,
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress",
    );
    assert_eq!(
        repo.run(&["next", "zed", "--json"], &[]).ok(),
        "{\n  \"revision\": 2,\n  \"durable\": true,\n  \"row\": null\n}\n"
    );
}

#[test]
fn move_walks_a_row_through_the_matrix() {
    let repo = Repo::new("move");
    ok(
        &repo,
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress",
    );
    // The seat that starts an unowned row becomes its owner.
    assert_eq!(repo.row(2)["owner"], "darkwing");
    assert!(
        repo.body()
            .contains("\n| 2 | Render | darkwing | in-progress | jason | #20 |  |\n")
    );

    ok(
        &repo,
        &["move", "2", "blocked", "--reason", "waiting on infra"],
        "darkwing-2-block",
        "darkwing",
        "ok darkwing-2-block rev 3 move 2 in-progress -> blocked",
    );
    assert_eq!(repo.row(2)["blockedReason"], "waiting on infra");
    assert!(
        repo.body()
            .contains("\n| 2 | Render | darkwing | blocked: waiting on infra | jason | #20 |  |\n")
    );
    assert!(
        repo.run(&["show", "2"], &[])
            .ok()
            .contains("\n  blocked: waiting on infra\n")
    );

    ok(
        &repo,
        &["move", "2", "in-progress"],
        "darkwing-2-unblock",
        "darkwing",
        "ok darkwing-2-unblock rev 4 move 2 blocked -> in-progress",
    );
    assert_eq!(repo.row(2)["blockedReason"], serde_json::Value::Null);

    // A round that posts nothing (no reviewers), on a commit reachable from main.
    let head = repo.git(&["rev-parse", "HEAD"]);
    ok(
        &repo,
        &["move", "2", "in-review", "--candidate", "HEAD"],
        "darkwing-2-review",
        "darkwing",
        "ok darkwing-2-review rev 5 move 2 in-progress -> in-review round 1",
    );
    let round = &repo.row(2)["review"]["rounds"][0];
    assert_eq!(round["candidate"], format!("git:{head}"));
    assert_eq!(round["issue"], 20);
    assert_eq!(round["requested"], false);
    assert!(
        repo.body()
            .contains("\n| 2 | Render | darkwing | in-review (round 1) | jason | #20 |  |\n")
    );

    let evidence = format!("comment=55,round=1,candidate=git:{head}");
    ok(
        &repo,
        &["move", "2", "done", "--evidence", &evidence],
        "darkwing-2-done",
        "darkwing",
        "ok darkwing-2-done rev 6 move 2 in-review -> done",
    );
    assert_eq!(repo.row(2)["status"], "done");

    // Privileged cells: park with a reason, then back to the queue with one.
    ok(
        &repo,
        &["move", "1", "parked", "--reason", "later"],
        "jason-1-park",
        "jason",
        "ok jason-1-park rev 7 move 1 queued -> parked",
    );
    assert!(
        repo.body()
            .contains("\n- 1 Parser (owner darkwing; issues #12, #14; reason: later): first\n")
    );
    ok(
        &repo,
        &["move", "1", "queued", "--reason", "back in"],
        "jason-1-unpark",
        "jason",
        "ok jason-1-unpark rev 8 move 1 parked -> queued",
    );
    assert!(
        repo.body()
            .contains("\n| 1 | Parser | darkwing | queued: back in |  | #12, #14 | first |\n")
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 8 (8 entries, witness rev 8), table current\n"
    );
}

#[test]
fn add_assign_and_release() {
    let repo = Repo::new("add");
    ok(
        &repo,
        &["add", "--piece", "Docs", "--issues", "30,#31"],
        "lead-add-0001",
        "lead",
        "ok lead-add-0001 rev 2 add 4 queued",
    );
    let row = repo.row(4);
    assert_eq!(row["issues"], serde_json::json!([30, 31]));
    assert_eq!(row["closes"], serde_json::json!([30, 31]));
    assert_eq!(row["owner"], serde_json::Value::Null);
    ok(
        &repo,
        &["assign", "4", "darkwing"],
        "lead-assign-0001",
        "lead",
        "ok lead-assign-0001 rev 3 assign 4 darkwing",
    );
    assert_eq!(repo.row(4)["owner"], "darkwing");
    ok(
        &repo,
        &["move", "4", "in-progress"],
        "darkwing-4-start",
        "darkwing",
        "ok darkwing-4-start rev 4 move 4 queued -> in-progress",
    );
    ok(
        &repo,
        &["release", "4"],
        "darkwing-4-release",
        "darkwing",
        "ok darkwing-4-release rev 5 release 4 in-progress -> queued",
    );
    assert_eq!(repo.row(4)["owner"], serde_json::Value::Null);
    assert_eq!(repo.row(4)["status"], "queued");

    // Every flag of add; a parked row goes to the list under the table.
    ok(
        &repo,
        &[
            "add",
            "--piece",
            "Packaging",
            "--owner",
            "sage",
            "--issues",
            "7",
            "--gate",
            "jason",
            "--reviewers",
            "darkwing,lead",
            "--brief",
            "packaging-brief",
            "--note",
            "after the parser",
            "--status",
            "parked",
        ],
        "jason-add-0002",
        "jason",
        "ok jason-add-0002 rev 6 add 5 parked",
    );
    let row = repo.row(5);
    assert_eq!(row["reviewers"], serde_json::json!(["darkwing", "lead"]));
    assert_eq!(row["brief"], "packaging-brief");
    assert_eq!(
        repo.body(),
        "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued |  | #12, #14 | first |
| 2 | Render |  | queued | jason | #20 |  |
| 4 | Docs |  | queued |  | #30, #31 |  |

**Parked**

- 3 Old thing (owner sage): later
- 5 [Packaging](packaging-brief) (owner sage; issues #7; gate jason): after the parser
"
    );
}

#[test]
fn note_sets_and_clears() {
    let repo = Repo::new("note");
    ok(
        &repo,
        &["note", "1", "parser | lexer split"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    assert_eq!(repo.row(1)["note"], "parser | lexer split");
    // The table escapes `|` itself.
    assert!(
        repo.body().contains(
            "\n| 1 | Parser | darkwing | queued |  | #12, #14 | parser \\| lexer split |\n"
        )
    );
    ok(
        &repo,
        &["note", "1", ""],
        "darkwing-1-clear",
        "darkwing",
        "ok darkwing-1-clear rev 3 note 1 cleared",
    );
    assert_eq!(repo.row(1)["note"], serde_json::Value::Null);
    let log = repo.queue()["log"].clone();
    assert_eq!(log[2]["args"]["text"], serde_json::Value::Null);
    assert!(
        repo.body()
            .contains("\n| 1 | Parser | darkwing | queued |  | #12, #14 |  |\n")
    );
}

#[test]
fn set_changes_fields_and_narrows_closes() {
    let repo = Repo::new("set");
    ok(
        &repo,
        &["set", "1", "piece", "Parser v2"],
        "darkwing-1-piece",
        "darkwing",
        "ok darkwing-1-piece rev 2 set 1 piece",
    );
    ok(
        &repo,
        &["set", "1", "gate", "sage"],
        "darkwing-1-gate",
        "darkwing",
        "ok darkwing-1-gate rev 3 set 1 gate",
    );
    ok(
        &repo,
        &["set", "1", "brief", "parser-brief"],
        "darkwing-1-brief",
        "darkwing",
        "ok darkwing-1-brief rev 4 set 1 brief",
    );
    ok(
        &repo,
        &["set", "1", "reviewers", "lead,sage"],
        "lead-1-reviewers",
        "lead",
        "ok lead-1-reviewers rev 5 set 1 reviewers",
    );
    let row = repo.row(1);
    assert_eq!(
        (&row["piece"], &row["gate"], &row["brief"]),
        (&"Parser v2".into(), &"sage".into(), &"parser-brief".into())
    );
    assert_eq!(row["reviewers"], serde_json::json!(["lead", "sage"]));

    // Issues without narrowing: closes follows them.
    ok(
        &repo,
        &["set", "2", "issues", "20,21"],
        "lead-2-issues",
        "lead",
        "ok lead-2-issues rev 6 set 2 issues",
    );
    assert_eq!(repo.row(2)["closes"], serde_json::json!([20, 21]));

    // Narrowing closes needs a reason.
    let out = repo.run(
        &change(
            &["set", "1", "closes", "12"],
            "darkwing-1-narrow",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: narrowing closes on row 1 needs --reason TEXT"
    );
    ok(
        &repo,
        &[
            "set",
            "1",
            "closes",
            "12",
            "--reason",
            "14 is its own piece",
        ],
        "darkwing-1-narrow",
        "darkwing",
        "ok darkwing-1-narrow rev 7 set 1 closes",
    );
    let row = repo.row(1);
    assert_eq!(row["closes"], serde_json::json!([12]));
    assert_eq!(row["closesNarrowed"], true);
    assert!(
        repo.body()
            .contains("\n| 1 | [Parser v2](parser-brief) | darkwing | queued | sage | #12, #14 (closes #12) | first |\n")
    );

    // New issues keep the narrowed part still among them.
    ok(
        &repo,
        &["set", "1", "issues", "12,15"],
        "darkwing-1-issues",
        "darkwing",
        "ok darkwing-1-issues rev 8 set 1 issues (kept narrowed)",
    );
    let row = repo.row(1);
    assert_eq!(row["issues"], serde_json::json!([12, 15]));
    assert_eq!(row["closes"], serde_json::json!([12]));
    assert_eq!(row["closesNarrowed"], true);
    assert!(
        repo.run(&["show", "1"], &[])
            .ok()
            .contains("\n  closes: #12 (narrowed)\n")
    );

    // Setting closes back to the issues clears the narrowing.
    ok(
        &repo,
        &["set", "1", "closes", "12,15"],
        "darkwing-1-widen",
        "darkwing",
        "ok darkwing-1-widen rev 9 set 1 closes",
    );
    assert_eq!(repo.row(1)["closesNarrowed"], false);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 9 (9 entries, witness rev 9), table current\n"
    );
}

#[test]
fn render_rewrites_a_stale_table_and_check_reports_it() {
    let repo = Repo::new("render");
    assert_eq!(
        repo.run(&["render", "--check"], &[]).ok(),
        "ok render rev 1: table current\n"
    );
    assert_eq!(
        repo.run(&["render"], &[]).ok(),
        "ok render rev 1: table current\n"
    );
    let old = repo.read("docs/plans/QUEUE.md");
    ok(
        &repo,
        &["note", "1", "moved on"],
        "darkwing-1-note",
        "darkwing",
        "ok darkwing-1-note rev 2 note 1",
    );
    let current = repo.read("docs/plans/QUEUE.md");
    // An older render put back: stale, not a hand edit.
    repo.write("docs/plans/QUEUE.md", &old);
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["render", "--check"], &[]).fails(2),
        "mosaic-queue: QUEUE.md is stale (rendered at rev 1); run `mosaic-queue render`"
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).fails(2),
        "mosaic-queue: QUEUE.md is stale (rendered at rev 1); look, then run `mosaic-queue render`"
    );
    repo.assert_unchanged(&before);
    // Plain verify checks the file, not the table.
    assert_eq!(
        repo.run(&["verify"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2)\n"
    );
    assert_eq!(
        repo.run(&["render"], &[]).ok(),
        "ok render rev 2: table rewritten\n"
    );
    assert_eq!(repo.read("docs/plans/QUEUE.md"), current);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 2 (2 entries, witness rev 2), table current\n"
    );
}

#[test]
fn a_retried_op_answers_with_its_original_receipt() {
    let repo = Repo::new("retry");
    let args = change(
        &["move", "2", "in-progress"],
        "darkwing-2-start",
        "darkwing",
    );
    let receipt = "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n";
    assert_eq!(repo.run(&args, &[]).ok(), receipt);
    ok(
        &repo,
        &["note", "2", "started"],
        "darkwing-2-note",
        "darkwing",
        "ok darkwing-2-note rev 3 note 2",
    );
    let before = repo.snapshot();
    // Same op, same arguments, a later revision on disk: the original receipt, nothing
    // written.
    assert_eq!(repo.run(&args, &[]).ok(), receipt);
    repo.assert_unchanged(&before);

    // Same op, other arguments, or another actor: refused.
    let out = repo.run(
        &change(
            &["move", "2", "blocked", "--reason", "x"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: op `darkwing-2-start` was already used at rev 2 for another command (move); choose a new op id"
    );
    let out = repo.run(
        &change(&["note", "2", "other"], "darkwing-2-note", "darkwing"),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: op `darkwing-2-note` was already used at rev 3 for another command (note); choose a new op id"
    );
    let out = repo.run(
        &change(&["move", "2", "in-progress"], "darkwing-2-start", "sage"),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: op `darkwing-2-start` was recorded at rev 2 by darkwing, not sage; choose a new op id"
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.ops(),
        ["genesis-0001", "darkwing-2-start", "darkwing-2-note"]
    );
}

#[test]
fn the_actor_is_by_else_the_environment() {
    let repo = Repo::new("actor");
    // $MOSAIC_AGENT_NAME alone.
    let out = repo.run(
        &["move", "2", "in-progress", "--op", "darkwing-2-start"],
        &[("MOSAIC_AGENT_NAME", "darkwing")],
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n"
    );
    assert_eq!(repo.queue()["log"][1]["by"], "darkwing");

    // Both, the same: no warning.
    let mut args = vec!["note", "2", "one", "--op", "darkwing-2-note1"];
    args.extend(DW);
    let out = repo.run(&args, &[("MOSAIC_AGENT_NAME", "darkwing")]);
    assert_eq!(out.ok(), "ok darkwing-2-note1 rev 3 note 2\n");

    // Both, different: --by wins, with one warning line on stderr.
    let mut args = vec!["note", "2", "two", "--op", "darkwing-2-note2"];
    args.extend(DW);
    let out = repo.run(&args, &[("MOSAIC_AGENT_NAME", "lead")]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            0,
            "ok darkwing-2-note2 rev 4 note 2\n",
            "warning: --by darkwing differs from MOSAIC_AGENT_NAME=lead; acting as darkwing\n"
        )
    );
    assert_eq!(repo.queue()["log"][3]["by"], "darkwing");

    // Neither (an empty variable counts as unset): usage, nothing written.
    let before = repo.snapshot();
    for env in [&[][..], &[("MOSAIC_AGENT_NAME", "")][..]] {
        let out = repo.run(&["note", "2", "three", "--op", "darkwing-2-note3"], env);
        assert_eq!(
            out.fails(4),
            "mosaic-queue: no actor: pass --by NAME or set MOSAIC_AGENT_NAME"
        );
    }
    // The contract: next without a seat refuses, exit 2 like every refusal.
    let no_seat = "mosaic-queue: refused: next needs a seat: pass `mosaic-queue next SEAT` or set MOSAIC_AGENT_NAME";
    assert_eq!(repo.run(&["next"], &[]).fails(2), no_seat);
    assert_eq!(
        repo.run(&["next"], &[("MOSAIC_AGENT_NAME", "")]).fails(2),
        no_seat
    );
    // A name that is no seat is refused, never handed a row.
    for (args, env, name) in [
        (&["next", ""][..], &[][..], ""),
        (&["next", "Bad Seat"], &[], "Bad Seat"),
        (&["next", "darkwing "], &[], "darkwing "),
        (&["next"], &[("MOSAIC_AGENT_NAME", "bad seat")], "bad seat"),
    ] {
        assert_eq!(
            repo.run(args, env).fails(2),
            format!(
                "mosaic-queue: refused: seat {name:?} is not a seat name: use 1 to 32 characters of [a-z0-9-], starting with a letter"
            ),
            "{args:?} {env:?}"
        );
    }
    repo.assert_unchanged(&before);
}
