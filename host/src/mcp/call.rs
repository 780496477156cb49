//! A tool call's arguments as the engine's request, built from the typed arguments with the
//! parsers the command line's grammar uses, so a value is refused with the line the CLI gives.
//! Beside it, the command line that asks the same (every option `--name=value`, every
//! positional after `--`, `--by SEAT` for each change), which an answer too large to send
//! names. Arguments no verb takes are a usage error (exit 4), as they are on the command line.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::paging::Shape;
use crate::engine::{
    Candidate, Change as Flags, MAX_WAIT_SECS, MoveText, NewRowText, Request, Review as Asked,
};
use crate::reply::Failure;
use crate::values::{self, number};
use mosaic_queue_core::{Status, shown};

/// What a tool call runs and how its answer is bounded.
pub struct Call {
    pub request: Request,
    /// The command line that asks the same, for an answer too large to send to name.
    pub argv: Vec<String>,
    pub shape: Shape,
    /// A `wait`, which must end when the call is cancelled or the server closes.
    pub waits: bool,
}

/// Builds argv from the verb words, then options, then the positionals.
struct Argv {
    words: Vec<String>,
    positionals: Vec<String>,
}

impl Argv {
    fn new(words: &[&str]) -> Argv {
        Argv {
            words: words.iter().map(|w| String::from(*w)).collect(),
            positionals: Vec::new(),
        }
    }

    fn opt(mut self, name: &str, value: Option<impl ToString>) -> Argv {
        if let Some(v) = value {
            self.words.push(format!("--{name}={}", v.to_string()));
        }
        self
    }

    fn flag(mut self, name: &str) -> Argv {
        self.words.push(format!("--{name}"));
        self
    }

    fn arg(mut self, value: Option<impl ToString>) -> Argv {
        if let Some(v) = value {
            self.positionals.push(v.to_string());
        }
        self
    }

    fn change(self, op: &str, seat: &str) -> Argv {
        self.opt("op", Some(op)).opt("by", Some(seat))
    }

    fn call(mut self, request: Request, shape: Shape) -> Call {
        if !self.positionals.is_empty() {
            self.words.push(String::from("--"));
            self.words.append(&mut self.positionals);
        }
        Call {
            request,
            argv: self.words,
            shape,
            waits: false,
        }
    }
}

fn parse<T: DeserializeOwned>(tool: &str, args: Map<String, Value>) -> Result<T, Failure> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| Failure::usage(format!("{tool}: {e}; see the tool's input schema")))
}

fn missing(tool: &str, what: &str) -> Failure {
    Failure::usage(format!("{tool}: {what}; see the tool's input schema"))
}

/// The argument `what` that `verb` of `tool` needs, or the usage refusal naming it.
fn needed<T: Clone>(tool: &str, verb: &str, value: Option<&T>, what: &str) -> Result<T, Failure> {
    value
        .cloned()
        .ok_or_else(|| missing(tool, &format!("{verb} needs {what}")))
}

/// The call for tool `name` with `args`, acting as `seat`; `None`: no such tool.
pub fn call(seat: &str, name: &str, args: Map<String, Value>) -> Option<Result<Call, Failure>> {
    Some(match name {
        "orient" => parse::<Empty>(name, args).map(|_| {
            let request = Request::Prime {
                seat: Some(seat.to_owned()),
            };
            Argv::new(&["prime"])
                .arg(Some(seat))
                .call(request, Shape::whole())
        }),
        "read" => only(name, &args, READ_FIELDS)
            .and_then(|()| parse(name, args))
            .and_then(|r| read(seat, r)),
        "take" => parse::<Take>(name, args).and_then(|a| {
            let request = Request::Take {
                lease: a
                    .lease
                    .as_deref()
                    .map(|l| lease("--lease", l))
                    .transpose()?,
                no_reclaim: a.no_reclaim,
                change: flags(&a.op, seat),
            };
            let argv = Argv::new(&["take"]).opt("lease", a.lease.as_ref());
            let argv = if a.no_reclaim {
                argv.flag("no-reclaim")
            } else {
                argv
            };
            Ok(argv.change(&a.op, seat).call(request, Shape::whole()))
        }),
        "change" => only(name, &args, CHANGE_FIELDS)
            .and_then(|()| parse(name, args))
            .and_then(|c| change(seat, c)),
        "wait" => parse(name, args).and_then(wait),
        "confirm" => parse::<OpOnly>(name, args).map(|a| {
            let request = Request::Sync {
                op: Some(a.op.clone()),
            };
            Argv::new(&["sync"])
                .opt("op", Some(&a.op))
                .call(request, Shape::whole())
        }),
        "review" => only(name, &args, REVIEW_FIELDS)
            .and_then(|()| parse(name, args))
            .and_then(|r| review(seat, r)),
        _ => return None,
    })
}

/// The fields each verb of a tool takes besides `verb`/`what` and `op`; any other is a usage
/// error, as a flag the verb does not have is on the command line.
type Fields = &'static [(&'static str, &'static [&'static str])];

const READ_FIELDS: Fields = &[
    ("list", &["status", "owner", "offset", "limit"]),
    ("show", &["id"]),
    ("next", &["offset", "limit"]),
    ("log", &["id", "offset", "limit"]),
    ("stale", &["days", "offset", "limit"]),
];

const CHANGE_FIELDS: Fields = &[
    (
        "move",
        &[
            "id",
            "status",
            "reason",
            "candidate",
            "manifest",
            "issue",
            "evidence",
            "lease",
        ],
    ),
    ("release", &["id"]),
    ("note", &["id", "text"]),
    ("set", &["id", "field", "value", "reason"]),
    (
        "add",
        &[
            "text",
            "owner",
            "issues",
            "gate",
            "reviewers",
            "brief",
            "note",
            "status",
            "after",
        ],
    ),
    ("assign", &["id", "owner"]),
    ("reclaim", &["id", "reason"]),
    ("lease-default", &["lease"]),
];

const REVIEW_FIELDS: Fields = &[
    ("request", &["id"]),
    ("record", &["id", "verdict", "comment", "candidate"]),
    ("resolve", &["id", "comment", "attempt"]),
];

/// Refuses a field the named verb does not take (an unknown verb is left to the verb's own
/// check, which names the verbs there are).
fn only(tool: &str, args: &Map<String, Value>, fields: Fields) -> Result<(), Failure> {
    let key = if tool == "read" { "what" } else { "verb" };
    let Some(verb) = args.get(key).and_then(Value::as_str) else {
        return Ok(());
    };
    let Some((_, allowed)) = fields.iter().find(|(v, _)| *v == verb) else {
        return Ok(());
    };
    match args
        .keys()
        .find(|k| *k != key && *k != "op" && !allowed.contains(&k.as_str()))
    {
        Some(k) => Err(missing(tool, &format!("{verb} takes no {k}"))),
        None => Ok(()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpOnly {
    op: String,
}

/// `take`'s arguments: the op, and the CLI's `--lease` and `--no-reclaim`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Take {
    op: String,
    lease: Option<String>,
    #[serde(default)]
    no_reclaim: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    what: String,
    id: Option<u64>,
    status: Option<String>,
    owner: Option<String>,
    /// `list --stale`'s value: days as a number, or the text the flag takes (`3`, `2h`, `90m`).
    days: Option<Value>,
    offset: Option<usize>,
    limit: Option<usize>,
}

fn read(seat: &str, r: Read) -> Result<Call, Failure> {
    let shape = |key: &'static str| Shape::paged(key, r.offset, r.limit);
    Ok(match r.what.as_str() {
        "list" => {
            let statuses = r.status.as_deref().map(split).unwrap_or_default();
            if let Some(bad) = statuses.iter().find(|s| Status::parse(s).is_none()) {
                return Err(Failure::usage(format!(
                    "unknown status {bad:?}: use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done"
                )));
            }
            let shape = shape("rows").filter(statuses, r.owner.clone());
            Argv::new(&["list"]).call(Request::List, shape)
        }
        "show" => {
            let id = r.id.ok_or_else(|| missing("read", "show needs id"))?;
            Argv::new(&["show"])
                .arg(Some(id))
                .call(Request::Show { id }, Shape::whole())
        }
        "next" => {
            let request = Request::Next {
                seat: Some(seat.to_owned()),
                explain: true,
            };
            Argv::new(&["next"])
                .flag("explain")
                .arg(Some(seat))
                .call(request, shape("passed"))
        }
        "log" => {
            // The CLI is asked for no more entries than the page can show, and one more to
            // know whether there is a next page.
            let limit = r.limit.unwrap_or(LOG_PAGE);
            let upto = r
                .offset
                .unwrap_or(0)
                .saturating_add(limit)
                .saturating_add(1);
            let request = Request::Log {
                id: r.id,
                limit: Some(
                    number::count(&upto.to_string()).map_err(|e| number::refused("--limit", &e))?,
                ),
            };
            Argv::new(&["log"]).opt("limit", Some(upto)).arg(r.id).call(
                request,
                Shape::paged("", r.offset, Some(limit)).open_ended(),
            )
        }
        "stale" => {
            // A number is digits as the command line gives them (`numbers::check` has read
            // its text already); a string is read as the flag's value, so `2h` and `90m`
            // mean what they mean to `list --stale`, and are refused as it refuses them.
            let days = match r.days {
                None => return Err(missing("read", "stale needs days")),
                Some(Value::Number(n)) => n.to_string(),
                Some(Value::String(text)) => text,
                Some(_) => {
                    return Err(missing(
                        "read",
                        "days is a number of days, or a text as list --stale takes it: 3, 2h, 90m",
                    ));
                }
            };
            let span = number::span(&days).map_err(|e| number::refused("--stale", &e))?;
            Argv::new(&["list"])
                .opt("stale", Some(&days))
                .call(Request::Stale { span }, shape("rows"))
        }
        other => {
            return Err(missing(
                "read",
                &format!("what {other:?} is none of list, show, next, log, stale"),
            ));
        }
    })
}

/// How many log entries one `read log` gives unless asked for another number.
const LOG_PAGE: usize = 20;

fn split(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Change {
    verb: String,
    op: String,
    id: Option<u64>,
    status: Option<String>,
    reason: Option<String>,
    candidate: Option<String>,
    manifest: Option<String>,
    issue: Option<u64>,
    evidence: Option<String>,
    text: Option<String>,
    field: Option<String>,
    value: Option<String>,
    owner: Option<String>,
    issues: Option<String>,
    reviewers: Option<String>,
    after: Option<String>,
    gate: Option<String>,
    brief: Option<String>,
    note: Option<String>,
    lease: Option<String>,
}

fn change(seat: &str, c: Change) -> Result<Call, Failure> {
    let need = |v: Option<&String>, what: &str| needed("change", &c.verb, v, what);
    let id = || needed("change", &c.verb, c.id.as_ref(), "id");
    let change = flags(&c.op, seat);
    let (argv, request) = match c.verb.as_str() {
        "move" => moved(&c, change)?,
        "release" => {
            let id = id()?;
            let argv = Argv::new(&["release"]).arg(Some(id));
            (argv, Request::Release { id, change })
        }
        "note" => {
            let (id, text) = (id()?, need(c.text.as_ref(), "text")?);
            let argv = Argv::new(&["note"]).arg(Some(id)).arg(Some(&text));
            (argv, Request::Note { id, text, change })
        }
        "set" => {
            let id = id()?;
            let field = need(c.field.as_ref(), "field")?;
            let value = need(c.value.as_ref(), "value")?;
            let argv = Argv::new(&["set"])
                .opt("reason", c.reason.as_ref())
                .arg(Some(id))
                .arg(Some(&field))
                .arg(Some(&value));
            let reason = c.reason.clone();
            let request = Request::Set {
                id,
                field,
                value,
                reason,
                change,
            };
            (argv, request)
        }
        "add" => add(&c, change)?,
        "assign" => {
            let (id, owner) = (id()?, need(c.owner.as_ref(), "owner")?);
            let argv = Argv::new(&["assign"]).arg(Some(id)).arg(Some(&owner));
            let request = Request::Assign {
                id,
                seat: owner,
                change,
            };
            (argv, request)
        }
        "reclaim" => {
            let reason = need(c.reason.as_ref(), "reason")?;
            let id = id()?;
            let argv = Argv::new(&["reclaim"])
                .opt("reason", Some(&reason))
                .arg(Some(id));
            (argv, Request::Reclaim { id, reason, change })
        }
        "lease-default" => {
            let given = need(c.lease.as_ref(), "lease (or off)")?;
            let lease = match given.as_str() {
                "off" => None,
                text => Some(self::lease("lease", text)?),
            };
            let argv = Argv::new(&["lease-default"]).arg(Some(&given));
            (argv, Request::LeaseDefault { lease, change })
        }
        other => {
            return Err(missing(
                "change",
                &format!(
                    "verb {other:?} is none of move, release, note, set, add, assign, reclaim, lease-default"
                ),
            ));
        }
    };
    Ok(argv.change(&c.op, seat).call(request, Shape::whole()))
}

/// `change`'s `move`: a candidate by name or the manifest's text, not both.
fn moved(c: &Change, change: Flags) -> Result<(Argv, Request), Failure> {
    let id = needed("change", "move", c.id.as_ref(), "id")?;
    let status = needed("change", "move", c.status.as_ref(), "status")?;
    let candidate = match (&c.candidate, &c.manifest) {
        (Some(_), Some(_)) => {
            return Err(missing(
                "change",
                "move takes candidate or manifest, not both",
            ));
        }
        (Some(given), None) => Some(Candidate::Named(given.clone())),
        (None, Some(text)) => Some(Candidate::Text {
            from: "--manifest-text",
            text: text.clone(),
        }),
        (None, None) => None,
    };
    let moved = MoveText {
        id,
        status: status.clone(),
        reason: c.reason.clone(),
        candidate,
        issue: c.issue,
        evidence: c.evidence.clone(),
        lease: c
            .lease
            .as_deref()
            .map(|l| lease("--lease", l))
            .transpose()?,
    };
    let argv = Argv::new(&["move"])
        .opt("reason", c.reason.as_ref())
        .opt("candidate", c.candidate.as_ref())
        .opt("manifest-text", c.manifest.as_ref())
        .opt("issue", c.issue)
        .opt("evidence", c.evidence.as_ref())
        .opt("lease", c.lease.as_ref())
        .arg(Some(id))
        .arg(Some(status));
    Ok((argv, Request::Move { moved, change }))
}

/// `change`'s `add`: the comma lists split as the command line splits them, the status
/// `queued` unless given.
fn add(c: &Change, change: Flags) -> Result<(Argv, Request), Failure> {
    let piece = c
        .text
        .clone()
        .ok_or_else(|| missing("change", "add needs text (the piece)"))?;
    let list = |v: &Option<String>| -> Vec<String> {
        v.as_deref()
            .map(|t| t.split(',').map(String::from).collect())
            .unwrap_or_default()
    };
    let row = NewRowText {
        piece: piece.clone(),
        owner: c.owner.clone(),
        issues: list(&c.issues),
        gate: c.gate.clone(),
        reviewers: list(&c.reviewers),
        brief: c.brief.clone(),
        note: c.note.clone(),
        status: c.status.clone().unwrap_or_else(|| String::from("queued")),
        after: list(&c.after),
    };
    let argv = Argv::new(&["add"])
        .opt("piece", Some(piece))
        .opt("owner", c.owner.as_ref())
        .opt("issues", c.issues.as_ref())
        .opt("gate", c.gate.as_ref())
        .opt("reviewers", c.reviewers.as_ref())
        .opt("brief", c.brief.as_ref())
        .opt("note", c.note.as_ref())
        .opt("status", c.status.as_ref())
        .opt("after", c.after.as_ref());
    Ok((argv, Request::Add { row, change }))
}

/// A change's `--op` and its seat.
fn flags(op: &str, seat: &str) -> Flags {
    Flags {
        op: op.to_owned(),
        by: Some(seat.to_owned()),
        // A tool's receipt waits the default time for the follower (docs/mcp.md).
        replication_timeout: None,
    }
}

/// A lease as the command line reads one, refused with its line (`name` as it names the
/// argument: `--lease`, or `lease-default`'s `lease`).
fn lease(name: &str, text: &str) -> Result<u32, Failure> {
    mosaic_queue_core::parse_lease(text)
        .map_err(|why| values::invalid(format!("refused: {name} {}: {why}", shown(text))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wait {
    id: Option<u64>,
    status: Option<String>,
    revision: Option<u64>,
    timeout: Option<f64>,
}

fn wait(w: Wait) -> Result<Call, Failure> {
    let max = f64::from(MAX_WAIT_SECS);
    let timeout = w.timeout.unwrap_or(max);
    if !(0.0..=max).contains(&timeout) {
        return Err(missing(
            "wait",
            &format!("timeout {timeout} is not from 0 to {MAX_WAIT_SECS} seconds"),
        ));
    }
    let request = Request::Wait {
        id: w.id,
        status: w
            .status
            .as_deref()
            .map(|t| t.split(',').map(String::from).collect())
            .unwrap_or_default(),
        revision_after: w.revision,
        timeout: Some(timeout.to_string()),
    };
    let mut call = Argv::new(&["wait"])
        .opt("status", w.status.as_ref())
        .opt("revision-after", w.revision)
        .opt("timeout", Some(timeout))
        .arg(w.id)
        .call(request, Shape::whole());
    call.waits = true;
    Ok(call)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Review {
    verb: String,
    op: String,
    id: u64,
    verdict: Option<String>,
    comment: Option<u64>,
    candidate: Option<String>,
    attempt: Option<String>,
}

fn review(seat: &str, r: Review) -> Result<Call, Failure> {
    let need = |v: Option<&String>, what: &str| needed("review", &r.verb, v, what);
    let comment = || needed("review", &r.verb, r.comment.as_ref(), "comment");
    let (id, change) = (r.id, flags(&r.op, seat));
    let (argv, asked) = match r.verb.as_str() {
        "request" => (
            Argv::new(&["review", "request"]).arg(Some(id)),
            Asked::Request { id, change },
        ),
        "record" => {
            let verdict = need(r.verdict.as_ref(), "verdict")?;
            let comment = comment()?;
            let candidate = need(r.candidate.as_ref(), "candidate")?;
            let argv = Argv::new(&["review", "record"])
                .opt("verdict", Some(&verdict))
                .opt("comment", Some(comment))
                .opt("candidate", Some(&candidate))
                .arg(Some(id));
            let asked = Asked::Record {
                id,
                verdict,
                comment,
                candidate,
                change,
            };
            (argv, asked)
        }
        "resolve" => {
            let comment = comment()?;
            let attempt = need(r.attempt.as_ref(), "attempt")?;
            let argv = Argv::new(&["review", "resolve"])
                .opt("comment", Some(comment))
                .arg(Some(id))
                .arg(Some(&attempt));
            let asked = Asked::Resolve {
                id,
                attempt,
                comment,
                change,
            };
            (argv, asked)
        }
        other => {
            return Err(missing(
                "review",
                &format!("verb {other:?} is none of request, record, resolve"),
            ));
        }
    };
    Ok(argv
        .change(&r.op, seat)
        .call(Request::Review(asked), Shape::whole()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The fields serde says a tool's arguments take, from its refusal of a field it has not:
    /// "unknown field `zzz`, expected one of `a`, `b`" (or "expected `a`", or none at all).
    fn accepted(tool: &str) -> BTreeSet<String> {
        let mut args = Map::new();
        args.insert(String::from("zzz"), Value::from(1));
        let refused = match call("jason", tool, args) {
            Some(Err(f)) => f.message,
            _ => panic!("{tool}: a field no tool has was taken"),
        };
        assert!(refused.contains("unknown field `zzz`"), "{tool}: {refused}");
        let expected = refused.split("expected").nth(1).unwrap_or("");
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    /// Every tool's input schema names exactly the fields its arguments take: two definitions
    /// (the schema clients read, the structs that parse a call) that cannot drift apart.
    #[test]
    fn each_tools_schema_names_the_fields_its_call_takes() {
        for tool in super::super::tools::tools("jason") {
            let properties: BTreeSet<String> = tool.input_schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            assert_eq!(accepted(&tool.name), properties, "{}", tool.name);
        }
    }
}
