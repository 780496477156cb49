//! Every MCP tool through a real `mosaic-queue mcp` in a scratch checkout: each answer is
//! exactly the CLI's `--json` document for the same verb (minified), each refusal a tool error
//! carrying the CLI's error document, and a seat's tool list at most 6,000 bytes.

use serde_json::{Value, json};
use support::Repo;
use support::mcp::{Answer, Mcp, minified};

/// A fixed clock, so `list --stale` answers the same from the server and the CLI.
const NOW: (&str, &str) = ("MOSAIC_NOW_MS", "1767225600000");

/// The CLI's `--json` document for `args`, minified, with its exit code.
fn cli(repo: &Repo, args: &[&str]) -> (i32, String) {
    let mut argv = args.to_vec();
    argv.push("--json");
    let out = repo.run(&argv, &[NOW]);
    (out.code, minified(&out.stdout))
}

/// Asserts `answer` is the CLI's answer to `args`: the same document, an error iff it failed.
#[track_caller]
fn same(answer: &Answer, repo: &Repo, args: &[&str]) {
    let (code, doc) = cli(repo, args);
    assert_eq!(
        (answer.is_error, answer.text.as_str()),
        (code != 0, doc.as_str()),
        "{args:?}"
    );
}

/// The receipt document in the CLI's member order.
fn receipt_doc(op: &str, rev: u64, verb: &str, row: u64, recorded: bool, text: &str) -> String {
    format!(
        "{{\"op\":\"{op}\",\"revision\":{rev},\"verb\":\"{verb}\",\"row\":{row},\"recorded\":{recorded},\"text\":\"{text}\"}}"
    )
}

#[test]
fn reads_answer_with_the_clis_documents() {
    let repo = Repo::new("mcp-reads");
    let (mut mcp, init) = Mcp::start(&repo.root, "darkwing", &[NOW]);
    let instructions = init["result"]["instructions"].as_str().unwrap();
    // The rules are prime's own lines.
    let prime = repo.run(&["prime", "darkwing", "--json"], &[]);
    let prime: Value = serde_json::from_str(&prime.stdout).unwrap();
    for rule in prime["rules"].as_array().unwrap() {
        let line = format!("- {}\n", rule.as_str().unwrap());
        assert!(instructions.contains(&line), "{line}");
    }
    assert!(instructions.starts_with("The team's work queue, for seat darkwing:"));

    same(
        &mcp.call("orient", json!({})),
        &repo,
        &["prime", "darkwing"],
    );
    same(&mcp.call("read", json!({"what": "list"})), &repo, &["list"]);
    same(
        &mcp.call("read", json!({"what": "show", "id": 2})),
        &repo,
        &["show", "2"],
    );
    same(
        &mcp.call("read", json!({"what": "next"})),
        &repo,
        &["next", "darkwing", "--explain"],
    );
    same(
        &mcp.call("read", json!({"what": "stale", "days": 0})),
        &repo,
        &["list", "--stale", "0"],
    );
    // A row that is not there is the CLI's refusal, as a tool error.
    same(
        &mcp.call("read", json!({"what": "show", "id": 9})),
        &repo,
        &["show", "9"],
    );
    // A number queue.json cannot hold is the CLI's refusal of the value (exit 2), not a slip.
    same(
        &mcp.call(
            "read",
            json!({"what": "show", "id": 9_007_199_254_740_992_u64}),
        ),
        &repo,
        &["show", "9007199254740992"],
    );
    // log's entries, newest first, with the page that holds them.
    let (_, entries) = cli(&repo, &["log"]);
    assert_eq!(
        mcp.call("read", json!({"what": "log"})).text,
        format!("{{\"entries\":{entries},\"page\":{{\"offset\":0,\"count\":1,\"next\":null}}}}")
    );
    // A filtered list is the CLI's list with the other rows left out, and says so.
    let list = mcp.call(
        "read",
        json!({"what": "list", "status": "queued", "owner": "darkwing"}),
    );
    let v = list.json();
    let ids: Vec<&Value> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&json!(1)]);
    assert_eq!(
        v["page"],
        json!({"offset": 0, "count": 1, "total": 1, "next": null})
    );
    let (_, whole) = cli(&repo, &["list"]);
    let whole: Value = serde_json::from_str(&whole).unwrap();
    assert_eq!(v["rows"][0], whole["rows"][0]);

    // Arguments no verb takes are usage errors (exit 4), as on the command line.
    let bad = mcp.call("read", json!({"what": "show", "id": 1, "owner": "x"}));
    assert!(bad.is_error);
    assert_eq!(
        bad.json()["error"],
        json!({"exit": 4, "kind": "usage", "message": "read: show takes no owner; see the tool's input schema", "next": "see the tool's input schema", "retryable": false})
    );
    let bad = mcp.call("read", json!({"what": "list", "status": "done,nope"}));
    assert_eq!(bad.json()["error"]["exit"], 4);
    // An unknown tool is a JSON-RPC error.
    let r = mcp.request("tools/call", json!({"name": "rm", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn changes_answer_with_receipts_and_retries_with_the_original() {
    let repo = Repo::new("mcp-changes");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);

    let take = mcp.call("take", json!({"op": "darkwing-take-1"}));
    // take's receipt holds the row it took, as it now stands (`current`).
    let receipt = receipt_doc(
        "darkwing-take-1",
        2,
        "take",
        1,
        false,
        "ok darkwing-take-1 rev 2 take 1 queued -> in-progress",
    );
    let first = format!(
        "{},\"current\":{{\"id\":1,\"piece\":\"Parser\",\"owner\":\"darkwing\",\"status\":\"in-progress\",\"gate\":null,\"issues\":[12,14],\"closes\":[12,14],\"closesNarrowed\":false,\"reviewers\":[],\"brief\":null,\"note\":\"first\",\"blockedReason\":null,\"review\":null}}}}",
        receipt.strip_suffix('}').unwrap()
    );
    assert_eq!((take.is_error, take.text.as_str()), (false, first.as_str()));
    // The same op again: the original receipt, recorded, nothing written.
    let before = repo.snapshot();
    let again = mcp.call("take", json!({"op": "darkwing-take-1"}));
    assert_eq!(
        again.text,
        first.replace("\"recorded\":false", "\"recorded\":true")
    );
    repo.assert_unchanged(&before);
    // What the CLI says for the same retry.
    same(
        &again,
        &repo,
        &["take", "--op", "darkwing-take-1", "--by", "darkwing"],
    );
    // Nothing more to take: the CLI's document, exit 0.
    same(
        &mcp.call("take", json!({"op": "darkwing-take-2"})),
        &repo,
        &["take", "--op", "darkwing-take-2", "--by", "darkwing"],
    );

    let note = mcp.call(
        "change",
        json!({"verb": "note", "op": "darkwing-1-note", "id": 1, "text": "-starts with a dash"}),
    );
    assert_eq!(
        note.text,
        receipt_doc(
            "darkwing-1-note",
            3,
            "note",
            1,
            false,
            "ok darkwing-1-note rev 3 note 1"
        )
    );
    assert_eq!(repo.row(1)["note"], "-starts with a dash");
    let set = mcp.call(
        "change",
        json!({"verb": "set", "op": "darkwing-1-gate", "id": 1, "field": "gate", "value": "sage"}),
    );
    assert!(!set.is_error, "{set:?}");
    assert_eq!(repo.row(1)["gate"], "sage");
    let blocked = mcp.call(
        "change",
        json!({"verb": "move", "op": "darkwing-1-block", "id": 1, "status": "blocked", "reason": "waiting on sage"}),
    );
    assert_eq!(
        blocked.text,
        receipt_doc(
            "darkwing-1-block",
            5,
            "move",
            1,
            false,
            "ok darkwing-1-block rev 5 move 1 in-progress -> blocked"
        )
    );
    let back = mcp.call(
        "change",
        json!({"verb": "move", "op": "darkwing-1-unblock", "id": 1, "status": "in-progress"}),
    );
    assert!(!back.is_error, "{back:?}");
    let release = mcp.call(
        "change",
        json!({"verb": "release", "op": "darkwing-1-release", "id": 1}),
    );
    assert_eq!(
        release.text,
        receipt_doc(
            "darkwing-1-release",
            7,
            "release",
            1,
            false,
            "ok darkwing-1-release rev 7 release 1 in-progress -> queued"
        )
    );

    // Refusals are the CLI's documents for the same command, and change nothing.
    let before = repo.snapshot();
    let add = mcp.call(
        "change",
        json!({"verb": "add", "op": "darkwing-add-1", "text": "More"}),
    );
    same(
        &add,
        &repo,
        &[
            "add",
            "--piece",
            "More",
            "--op",
            "darkwing-add-1",
            "--by",
            "darkwing",
        ],
    );
    assert_eq!(add.json()["error"]["exit"], 2);
    let bad_op = mcp.call("take", json!({"op": "x"}));
    same(&bad_op, &repo, &["take", "--op", "x", "--by", "darkwing"]);
    let huge = mcp.call(
        "read",
        json!({"what": "show", "id": 9_007_199_254_740_993u64}),
    );
    assert_eq!(huge.json()["error"]["exit"], 2, "{huge:?}");
    let moved = mcp.call(
        "change",
        json!({"verb": "move", "op": "darkwing-2-start", "id": 2, "status": "done"}),
    );
    same(
        &moved,
        &repo,
        &[
            "move",
            "2",
            "done",
            "--op",
            "darkwing-2-start",
            "--by",
            "darkwing",
        ],
    );
    repo.assert_unchanged(&before);

    // confirm: sync --op, as the CLI answers it.
    same(
        &mcp.call("confirm", json!({"op": "darkwing-take-1"})),
        &repo,
        &["sync", "--op", "darkwing-take-1"],
    );
    same(
        &mcp.call("confirm", json!({"op": "never-ran-1"})),
        &repo,
        &["sync", "--op", "never-ran-1"],
    );
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn review_and_wait_answer_as_their_verbs() {
    let repo = Repo::new("mcp-review");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    // Row 1 has no review round: each review verb is the core's refusal, through the CLI.
    let before = repo.snapshot();
    same(
        &mcp.call(
            "review",
            json!({"verb": "request", "op": "darkwing-1-req", "id": 1}),
        ),
        &repo,
        &[
            "review",
            "request",
            "1",
            "--op",
            "darkwing-1-req",
            "--by",
            "darkwing",
        ],
    );
    let digest = format!("git:{}", "0".repeat(40));
    same(
        &mcp.call(
            "review",
            json!({"verb": "record", "op": "darkwing-1-rec", "id": 1, "verdict": "approve", "comment": 5, "candidate": digest}),
        ),
        &repo,
        &["review", "record", "1", "--verdict", "approve", "--comment", "5", "--candidate", &digest, "--op", "darkwing-1-rec", "--by", "darkwing"],
    );
    same(
        &mcp.call(
            "review",
            json!({"verb": "resolve", "op": "darkwing-1-res", "id": 1, "attempt": "darkwing-1-req", "comment": 5}),
        ),
        &repo,
        &["review", "resolve", "1", "darkwing-1-req", "--comment", "5", "--op", "darkwing-1-res", "--by", "darkwing"],
    );
    repo.assert_unchanged(&before);

    // wait: a condition that holds answers at once; one that cannot is refused; a timeout
    // is the CLI's failure.
    same(
        &mcp.call("wait", json!({"id": 1, "status": "queued,done"})),
        &repo,
        &["wait", "1", "--status", "queued,done"],
    );
    same(
        &mcp.call("wait", json!({"revision": 0})),
        &repo,
        &["wait", "--revision-after", "0"],
    );
    same(
        &mcp.call("wait", json!({"id": 2, "status": "done", "timeout": 0.2})),
        &repo,
        &["wait", "2", "--status", "done", "--timeout", "0.2"],
    );
    let long = mcp.call("wait", json!({"id": 2, "status": "done", "timeout": 601}));
    assert_eq!(
        long.json()["error"]["message"],
        "refused: timeout \"601\" is not a number of seconds; give one from 0 to 600"
    );
    // A wait that a write ends: the answer comes once the witness says the row moved.
    let id = mcp.send_request(
        "tools/call",
        json!({"name": "wait", "arguments": {"id": 1, "status": "in-progress", "timeout": 60}}),
    );
    // The take lands while the wait watches, not before it starts.
    support::watch::until_watching(mcp.pid(), &repo.path(".git"));
    let out = repo.run(
        &["take", "--op", "darkwing-take-1", "--by", "darkwing"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let woke = support::mcp::answer(&mcp.response(id));
    same(&woke, &repo, &["wait", "1", "--status", "in-progress"]);
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn privileged_seats_add_and_assign() {
    let repo = Repo::new("mcp-privileged");
    let (mut mcp, _) = Mcp::start(&repo.root, "jason", &[]);
    let add = mcp.call(
        "change",
        json!({"verb": "add", "op": "jason-add-0001", "text": "New work", "issues": "#30,31", "reviewers": "flicker", "after": "1", "note": "-n"}),
    );
    assert_eq!(
        add.text,
        receipt_doc(
            "jason-add-0001",
            2,
            "add",
            4,
            false,
            "ok jason-add-0001 rev 2 add 4 queued"
        )
    );
    let row = repo.row(4);
    assert_eq!(
        (
            &row["issues"],
            &row["reviewers"],
            &row["after"],
            &row["note"]
        ),
        (
            &json!([30, 31]),
            &json!(["flicker"]),
            &json!([1]),
            &json!("-n")
        )
    );
    let assign = mcp.call(
        "change",
        json!({"verb": "assign", "op": "jason-4-assign", "id": 4, "owner": "huey"}),
    );
    assert!(!assign.is_error, "{assign:?}");
    assert_eq!(repo.row(4)["owner"], "huey");
    assert_eq!(mcp.close().code(), Some(0));
}

/// The whole `tools/list` answer for a seat, the lead and a privileged person stays within
/// 6,000 bytes; a plain seat is not offered add or assign.
#[test]
fn the_tool_list_is_small() {
    let repo = Repo::new("mcp-tools-size");
    let mut sizes = Vec::new();
    for seat in ["darkwing", "lead", "jason"] {
        let (mut mcp, _) = Mcp::start(&repo.root, seat, &[]);
        let tools = mcp.tools();
        let names = support::mcp::tool_names(&tools);
        assert_eq!(
            names,
            [
                "orient", "read", "take", "change", "wait", "confirm", "review"
            ]
        );
        let size = serde_json::to_string(&tools).unwrap().len();
        assert!(size <= 6000, "{seat}: tools/list is {size} bytes");
        let verbs = tools["tools"][3]["inputSchema"]["properties"]["verb"]["enum"].clone();
        let adds = verbs.as_array().unwrap().contains(&json!("add"));
        assert_eq!(adds, seat != "darkwing", "{seat}: {verbs}");
        sizes.push(size);
        assert_eq!(mcp.close().code(), Some(0));
    }
    assert!(sizes[0] < sizes[2]);
}
