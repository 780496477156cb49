//! The seven tools as `tools/list` shows them: names, one-line descriptions and hand-written
//! input schemas, kept terse because every client puts the whole list in its model's context
//! (at most 6,000 bytes of JSON, held by a test). A seat that may not add or assign rows is
//! not shown those verbs.

use std::sync::Arc;

use mosaic_queue_core::{LEAD, is_privileged};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::engine::Reach;

/// The longest wait one call may ask for, in seconds (the engine's bound on a remote wait).
pub use crate::engine::MAX_WAIT_SECS;

/// Whether `seat` may add and assign rows: the lead and the privileged people.
pub fn may_add(seat: &str) -> bool {
    seat == LEAD || is_privileged(seat)
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool(name: &'static str, description: &'static str, schema: Arc<JsonObject>) -> Tool {
    Tool::new(name, description, schema)
}

fn read_only(tool: Tool) -> Tool {
    tool.annotate(ToolAnnotations::new().read_only(true))
}

const STR: fn() -> Value = || json!({"type": "string"});
const INT: fn() -> Value = || json!({"type": "integer", "minimum": 0});
const LEASE: fn() -> Value = || json!({"type": "string", "description": "90s, 45m, 2h"});

/// The tools for `seat`, in the order `tools/list` gives them.
pub fn tools(seat: &str) -> Vec<Tool> {
    vec![
        read_only(tool(
            "orient",
            "Start here: your rows, what next gives and why, the rules (prime).",
            schema(json!({}), &[]),
        )),
        read_only(tool(
            "read",
            "list rows (filter status, owner), show id, next (with why others were passed), log [id] newest first, stale days (or 2h, 90m). Over 16 KiB: paged (ask offset=page.next), long strings cut.",
            schema(
                json!({
                    "what": {"enum": ["list", "show", "next", "log", "stale"]},
                    "id": INT(),
                    "status": {"type": "string", "description": "S,S..."},
                    "owner": STR(),
                    "days": {"type": ["integer", "string"], "minimum": 0, "description": "as list --stale: days (3), hours (2h) or minutes (90m)"},
                    "offset": INT(),
                    "limit": INT(),
                }),
                &["what"],
            ),
        )),
        tool(
            "take",
            "Claim and start the row next names, as one entry (an expired claim too, unless noReclaim).",
            schema(
                json!({"op": STR(), "lease": LEASE(), "noReclaim": {"type": "boolean"}}),
                &["op"],
            ),
        ),
        change(seat),
        read_only(tool(
            "wait",
            "Until row id is in status S,S... or the queue passes revision. timeout: seconds, at most 600.",
            schema(
                json!({
                    "id": INT(),
                    "status": STR(),
                    "revision": INT(),
                    "timeout": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_SECS},
                }),
                &[],
            ),
        )),
        tool(
            "confirm",
            "Is op in the log and durable? (sync --op)",
            schema(json!({"op": STR()}), &["op"]),
        ),
        tool(
            "review",
            "request a review round again; record your verdict; resolve an attempt with the comment found.",
            schema(
                json!({
                    "verb": {"enum": ["request", "record", "resolve"]},
                    "op": STR(),
                    "id": INT(),
                    "verdict": {"enum": ["approve", "changes"]},
                    "comment": INT(),
                    "candidate": {"type": "string", "description": "record: digest as show gives it"},
                    "attempt": {"type": "string", "description": "resolve: the attempt's op"},
                }),
                &["verb", "op", "id"],
            ),
        ),
    ]
}

/// What `candidate` may name: on the queue host a commit or a manifest file; through the gate a
/// commit the host has (the host cannot read a file on the seat's machine).
fn candidate() -> &'static str {
    match Reach::here() {
        Reach::Host => "to in-review: commit or manifest file",
        Reach::Gate => "to in-review: a commit the queue host has (or give manifest)",
    }
}

/// `change`: the seat's own moves and edits, and adding and assigning rows where it may.
fn change(seat: &str) -> Tool {
    let mut properties = json!({
        "verb": {"enum": ["move", "release", "note", "set"]},
        "op": STR(),
        "id": INT(),
        "status": {"type": "string", "description": "move: the new status"},
        "reason": STR(),
        "candidate": {"type": "string", "description": candidate()},
        "manifest": {"type": "string", "description": "to in-review: the manifest's text"},
        "issue": INT(),
        "evidence": {"type": "string", "description": "comment=ID,round=N,candidate=DIGEST"},
        "text": {"type": "string", "description": "note: the note, '' clears"},
        "field": {"enum": ["piece", "gate", "issues", "closes", "reviewers", "brief", "after"]},
        "value": {"type": "string", "description": "set: lists comma-separated"},
        "lease": {"type": "string", "description": "to in-progress: 90s, 45m, 2h"},
    });
    let mut description = "move, release, note or set a row; fields as the CLI's flags.";
    if may_add(seat) {
        properties["verb"] = json!({"enum": ["move", "release", "note", "set", "add", "assign", "reclaim", "lease-default"]});
        properties["lease"] = json!({"type": "string", "description": "to in-progress, lease-default: 90s, 45m, 2h, off"});
        properties["status"] =
            json!({"type": "string", "description": "move: the new status; add: queued or parked"});
        properties["text"] =
            json!({"type": "string", "description": "note: the note, '' clears; add: the piece"});
        for list in ["issues", "reviewers", "after"] {
            properties[list] = json!({"type": "string", "description": "add: comma-separated"});
        }
        properties["owner"] = json!({"type": "string", "description": "add, assign: the owner"});
        properties["gate"] = STR();
        properties["brief"] = STR();
        properties["note"] = STR();
        description = "move, release, note or set a row, add or assign one, reclaim one, set lease-default; fields as the CLI's flags.";
    }
    tool("change", description, schema(properties, &["verb", "op"]))
}
