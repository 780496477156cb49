//! Every MCP tool through a real `mosaic-queue mcp` in a scratch checkout: each answer is
//! the document written out here (the CLI's `--json` document for the same verb, minified),
//! each refusal a tool error carrying its error document, and a seat's tool list at most 6,000
//! bytes. Nothing is compared with another run of the same code.

use serde_json::{Value, json};
use support::Repo;
use support::mcp::{Answer, Mcp};

/// A fixed clock, so `list --stale` answers the same whenever the test runs.
const NOW: (&str, &str) = ("MOSAIC_NOW_MS", "1767225600000");

/// The rows of `Repo::new`'s queue, as every document prints them.
pub(crate) const ROW1: &str = r#"{"id":1,"piece":"Parser","owner":"darkwing","status":"queued","gate":null,"issues":[12,14],"closes":[12,14],"closesNarrowed":false,"reviewers":[],"brief":null,"note":"first","blockedReason":null,"review":null}"#;
pub(crate) const ROW2: &str = r#"{"id":2,"piece":"Render","owner":null,"status":"queued","gate":"jason","issues":[20],"closes":[20],"closesNarrowed":false,"reviewers":[],"brief":null,"note":null,"blockedReason":null,"review":null}"#;
pub(crate) const ROW3: &str = r#"{"id":3,"piece":"Old thing","owner":"sage","status":"parked","gate":null,"issues":[],"closes":[],"closesNarrowed":false,"reviewers":[],"brief":null,"note":"later","blockedReason":null,"review":null}"#;

/// Row 1 once darkwing took it.
pub(crate) fn row1_taken() -> String {
    ROW1.replace("\"queued\"", "\"in-progress\"")
}

/// What darkwing's `orient` (prime darkwing) answers on `Repo::new`'s queue.
pub(crate) const ORIENT: &str = r#"{"revision":1,"durable":true,"seat":"darkwing","role":"seat","rows":[{"id":1,"piece":"Parser","status":"queued","waitsOn":[],"waitsOnMore":0}],"next":{"id":1,"piece":"Parser","status":"queued","owner":"darkwing"},"passed":[{"id":3,"why":"parked"}],"rules":["Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.","Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.","Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.","Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.","You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs --candidate FILE|REV, -> blocked needs --reason; in-review -> in-progress when changes are asked.","You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.","The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done."],"commands":["mosaic-queue take --op OP --by darkwing      claim what next names and start it","mosaic-queue next darkwing --explain         what next gives and why","mosaic-queue show ID                         one row","mosaic-queue move ID in-review --candidate FILE|REV --op OP --by darkwing","mosaic-queue move ID blocked --reason TEXT --op OP --by darkwing","mosaic-queue release ID --op OP --by darkwing","mosaic-queue note ID TEXT --op OP --by darkwing","mosaic-queue wait ID --status in-review,done --timeout 600","mosaic-queue sync --op OP                    is that op in the log and durable?"],"cut":null}"#;

/// An error document, in the CLI's member order.
pub(crate) fn error_doc(exit: u8, kind: &str, message: &str, next: &str) -> String {
    let text = |s: &str| serde_json::to_string(s).unwrap();
    format!(
        "{{\"error\":{{\"exit\":{exit},\"kind\":{},\"message\":{},\"next\":{},\"retryable\":false}}}}",
        text(kind),
        text(message),
        text(next)
    )
}

/// The next step the core names for a refusal of the data or the request.
pub(crate) const CORRECT: &str =
    "nothing was changed: correct the data or the request the message names";

/// Asserts `answer` is `doc`, byte for byte, and a tool error exactly when `error`.
#[track_caller]
pub(crate) fn is(answer: &Answer, error: bool, doc: &str) {
    assert_eq!((answer.is_error, answer.text.as_str()), (error, doc));
}

/// The receipt document in the CLI's member order.
pub(crate) fn receipt_doc(
    op: &str,
    rev: u64,
    verb: &str,
    row: u64,
    recorded: bool,
    text: &str,
) -> String {
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
    let prime: Value = serde_json::from_str(ORIENT).unwrap();
    for rule in prime["rules"].as_array().unwrap() {
        let line = format!("- {}\n", rule.as_str().unwrap());
        assert!(instructions.contains(&line), "{line}");
    }
    assert!(instructions.starts_with("The team's work queue, for seat darkwing:"));

    is(&mcp.call("orient", json!({})), false, ORIENT);
    is(
        &mcp.call("read", json!({"what": "list"})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"rows\":[{ROW1},{ROW2},{ROW3}]}}"),
    );
    is(
        &mcp.call("read", json!({"what": "show", "id": 2})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"row\":{ROW2}}}"),
    );
    is(
        &mcp.call("read", json!({"what": "next"})),
        false,
        &format!(
            "{{\"revision\":1,\"durable\":true,\"row\":{ROW1},\"passed\":[{{\"id\":2,\"why\":\"later\",\"text\":\"could be taken, but row 1 comes first\"}},{{\"id\":3,\"why\":\"parked\",\"text\":\"parked\"}}],\"done\":0}}"
        ),
    );
    is(
        &mcp.call("read", json!({"what": "stale", "days": 0})),
        false,
        r#"{"revision":1,"durable":true,"days":0,"cutoff":"2026-01-01T00:00:00.000Z","rows":[]}"#,
    );
    // A row that is not there is the CLI's refusal, as a tool error.
    is(
        &mcp.call("read", json!({"what": "show", "id": 9})),
        true,
        &error_doc(
            2,
            "no-such-row",
            "refused: no row 9 in the queue; `mosaic-queue list` shows the rows",
            "`mosaic-queue list` shows the rows",
        ),
    );
    // A number queue.json cannot hold is the CLI's refusal of the value (exit 2), not a slip.
    is(
        &mcp.call(
            "read",
            json!({"what": "show", "id": 9_007_199_254_740_992_u64}),
        ),
        true,
        &error_doc(
            2,
            "invalid-value",
            "refused: row id 9007199254740992 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number",
            "give the real number",
        ),
    );
    // log's entries, newest first, with the page that holds them: genesis's entry, its time
    // and root read from queue.json as written.
    let entry = &repo.queue()["log"][0];
    let (at, root) = (entry["at"].as_str().unwrap(), repo.root.display());
    let genesis = format!(
        r#"{{"rev":1,"op":"genesis-0001","verb":"genesis","by":"jason","at":"{at}","semantics":2,"args":{{"branch":"main","root":"{root}","source":"12e33467a9a6adb9cc9f5a897671530144681618","rows":[{{"id":1,"piece":"Parser","owner":"darkwing","status":"queued","gate":null,"issues":[12,14],"note":"first"}},{{"id":2,"piece":"Render","owner":null,"status":"queued","gate":"jason","issues":[20],"note":null}},{{"id":3,"piece":"Old thing","owner":"sage","status":"parked","gate":null,"issues":[],"note":"later"}}],"legacyView":"| # | What | Who |\n| 1 | parser | darkwing |\nlegacy text kept as the legacy view\n"}},"receipt":"ok genesis-0001 rev 1 genesis 3 rows on main from blob 12e33467a9a6","body":"39f993d5f10a95cd4301853f791cea2a3974250a799e20932c703a79ea1ba5fe"}}"#
    );
    is(
        &mcp.call("read", json!({"what": "log"})),
        false,
        &format!("{{\"entries\":[{genesis}],\"page\":{{\"offset\":0,\"count\":1,\"next\":null}}}}"),
    );
    // A filtered list is the list with the other rows left out, and says so.
    is(
        &mcp.call(
            "read",
            json!({"what": "list", "status": "queued", "owner": "darkwing"}),
        ),
        false,
        &format!(
            "{{\"revision\":1,\"durable\":true,\"rows\":[{ROW1}],\"page\":{{\"offset\":0,\"count\":1,\"total\":1,\"next\":null}}}}"
        ),
    );

    // Arguments no verb takes are usage errors (exit 4), as on the command line.
    is(
        &mcp.call("read", json!({"what": "show", "id": 1, "owner": "x"})),
        true,
        &error_doc(
            4,
            "usage",
            "read: show takes no owner; see the tool's input schema",
            "see the tool's input schema",
        ),
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
        "{},\"current\":{}}}",
        receipt.strip_suffix('}').unwrap(),
        row1_taken()
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
    // Nothing more to take: a receipt without a row, exit 0, nothing written.
    is(
        &mcp.call("take", json!({"op": "darkwing-take-2"})),
        false,
        &format!(
            "{{\"op\":\"darkwing-take-2\",\"revision\":2,\"verb\":\"take\",\"row\":null,\"recorded\":false,\"text\":\"nothing to take: darkwing has row 1 in progress\",\"current\":{}}}",
            row1_taken()
        ),
    );
    repo.assert_unchanged(&before);

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
    is(
        &set,
        false,
        &receipt_doc(
            "darkwing-1-gate",
            4,
            "set",
            1,
            false,
            "ok darkwing-1-gate rev 4 set 1 gate",
        ),
    );
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
    is(
        &back,
        false,
        &receipt_doc(
            "darkwing-1-unblock",
            6,
            "move",
            1,
            false,
            "ok darkwing-1-unblock rev 6 move 1 blocked -> in-progress",
        ),
    );
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

    // Refusals are tool errors with their documents, and change nothing.
    let before = repo.snapshot();
    is(
        &mcp.call(
            "change",
            json!({"verb": "add", "op": "darkwing-add-1", "text": "More"}),
        ),
        true,
        &error_doc(
            2,
            "not-allowed",
            "refused: darkwing may not add rows: the lead, jason or sage only",
            CORRECT,
        ),
    );
    is(
        &mcp.call("take", json!({"op": "x"})),
        true,
        &error_doc(
            2,
            "invalid-op",
            "refused: op id \"x\" is invalid: use 8 to 72 characters of [a-z0-9._-], starting with a letter or digit, not ending in .outcome",
            CORRECT,
        ),
    );
    is(
        &mcp.call(
            "read",
            json!({"what": "show", "id": 9_007_199_254_740_993u64}),
        ),
        true,
        &error_doc(
            2,
            "invalid-value",
            "refused: row id 9007199254740993 is above 9007199254740991 (2^53-1), the largest number queue.json can hold; give the real number",
            "give the real number",
        ),
    );
    is(
        &mcp.call(
            "change",
            json!({"verb": "move", "op": "darkwing-2-start", "id": 2, "status": "done"}),
        ),
        true,
        &error_doc(
            2,
            "no-transition",
            "refused: row 2 cannot move from queued to done; see docs/transitions.md",
            "see docs/transitions.md",
        ),
    );
    repo.assert_unchanged(&before);

    // confirm: sync --op's answer.
    is(
        &mcp.call("confirm", json!({"op": "darkwing-take-1"})),
        false,
        r#"{"verb":"sync","text":"ok sync rev 7: darkwing-take-1 is durable at rev 2 (by darkwing)"}"#,
    );
    is(
        &mcp.call("confirm", json!({"op": "never-ran-1"})),
        true,
        &error_doc(
            2,
            "refused",
            "op never-ran-1 is not in the log (rev 7): it never became visible; retry it with the same op id and arguments",
            "retry it with the same op id and arguments",
        ),
    );
    assert_eq!(mcp.close().code(), Some(0));
}

#[test]
fn review_and_wait_answer_as_their_verbs() {
    let repo = Repo::new("mcp-review");
    let (mut mcp, _) = Mcp::start(&repo.root, "darkwing", &[]);
    // Row 1 has no review round: each review verb is the core's refusal.
    let before = repo.snapshot();
    is(
        &mcp.call(
            "review",
            json!({"verb": "request", "op": "darkwing-1-req", "id": 1}),
        ),
        true,
        &error_doc(
            2,
            "not-in-review",
            "refused: row 1 is queued; review request needs it in-review",
            "review request needs it in-review",
        ),
    );
    let digest = format!("git:{}", "0".repeat(40));
    is(
        &mcp.call(
            "review",
            json!({"verb": "record", "op": "darkwing-1-rec", "id": 1, "verdict": "approve", "comment": 5, "candidate": digest}),
        ),
        true,
        &error_doc(
            2,
            "not-allowed",
            "refused: darkwing may not record a verdict on row 1: a listed reviewer other than the owner",
            CORRECT,
        ),
    );
    is(
        &mcp.call(
            "review",
            json!({"verb": "resolve", "op": "darkwing-1-res", "id": 1, "attempt": "darkwing-1-req", "comment": 5}),
        ),
        true,
        &error_doc(
            2,
            "no-such-attempt",
            "refused: row 1 has no request attempt darkwing-1-req; `mosaic-queue show 1` lists its rounds",
            "`mosaic-queue show 1` lists its rounds",
        ),
    );
    repo.assert_unchanged(&before);

    // wait: a condition that holds answers at once with the row or the revision; a timeout is
    // a failure (exit 1) saying where the row stands.
    is(
        &mcp.call("wait", json!({"id": 1, "status": "queued,done"})),
        false,
        &format!("{{\"revision\":1,\"durable\":true,\"row\":{ROW1}}}"),
    );
    is(
        &mcp.call("wait", json!({"revision": 0})),
        false,
        r#"{"revision":1,"durable":true}"#,
    );
    is(
        &mcp.call("wait", json!({"id": 2, "status": "done", "timeout": 0.2})),
        true,
        &error_doc(
            1,
            "failed",
            "timed out after 0.2s waiting for row 2 to be done; it is queued at rev 1",
            "it is queued at rev 1",
        ),
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
    assert_eq!(
        out.ok(),
        "ok darkwing-take-1 rev 2 take 1 queued -> in-progress\n"
    );
    is(
        &support::mcp::answer(&mcp.response(id)),
        false,
        &format!(
            "{{\"revision\":2,\"durable\":true,\"row\":{}}}",
            row1_taken()
        ),
    );
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
    is(
        &assign,
        false,
        &receipt_doc(
            "jason-4-assign",
            3,
            "assign",
            4,
            false,
            "ok jason-4-assign rev 3 assign 4 huey",
        ),
    );
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
