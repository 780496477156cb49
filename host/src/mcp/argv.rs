//! A tool call's arguments as the CLI's argv: every option written `--name=value` (so a value
//! that starts with `-` stays a value) and every positional after `--`, with `--by SEAT` for
//! each change, so the verb sees exactly what a seat typing it would give. Arguments no verb
//! takes are a usage error (exit 4), as they are on the command line.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::bound::Shape;
use super::tools::MAX_WAIT_SECS;
use crate::reply::Failure;
use mosaic_queue_core::Status;

/// What a tool call runs and how its answer is bounded.
pub struct Call {
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

    fn call(mut self, shape: Shape) -> Call {
        if !self.positionals.is_empty() {
            self.words.push(String::from("--"));
            self.words.append(&mut self.positionals);
        }
        Call {
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

/// The call for tool `name` with `args`, acting as `seat`; `None`: no such tool.
pub fn call(seat: &str, name: &str, args: Map<String, Value>) -> Option<Result<Call, Failure>> {
    Some(match name {
        "orient" => parse::<Empty>(name, args)
            .map(|_| Argv::new(&["prime"]).arg(Some(seat)).call(Shape::whole())),
        "read" => only(name, &args, READ_FIELDS)
            .and_then(|()| parse(name, args))
            .and_then(|r| read(seat, r)),
        "take" => parse::<Take>(name, args).map(|a| {
            let argv = Argv::new(&["take"]).opt("lease", a.lease.as_ref());
            let argv = if a.no_reclaim {
                argv.flag("no-reclaim")
            } else {
                argv
            };
            argv.change(&a.op, seat).call(Shape::whole())
        }),
        "change" => only(name, &args, CHANGE_FIELDS)
            .and_then(|()| parse(name, args))
            .and_then(|c| change(seat, c)),
        "wait" => parse(name, args).and_then(wait),
        "confirm" => parse::<OpOnly>(name, args).map(|a| {
            Argv::new(&["sync"])
                .opt("op", Some(&a.op))
                .call(Shape::whole())
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
    days: Option<u32>,
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
            Argv::new(&["list"]).call(shape)
        }
        "show" => {
            let id = r.id.ok_or_else(|| missing("read", "show needs id"))?;
            Argv::new(&["show"]).arg(Some(id)).call(Shape::whole())
        }
        "next" => Argv::new(&["next"])
            .flag("explain")
            .arg(Some(seat))
            .call(shape("passed")),
        "log" => {
            // The CLI is asked for no more entries than the page can show, and one more to
            // know whether there is a next page.
            let limit = r.limit.unwrap_or(LOG_PAGE);
            let upto = r
                .offset
                .unwrap_or(0)
                .saturating_add(limit)
                .saturating_add(1);
            Argv::new(&["log"])
                .opt("limit", Some(upto))
                .arg(r.id)
                .call(Shape::paged("", r.offset, Some(limit)).open_ended())
        }
        "stale" => {
            let days = r.days.ok_or_else(|| missing("read", "stale needs days"))?;
            Argv::new(&["list"])
                .opt("stale", Some(days))
                .call(shape("rows"))
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
    let id = || {
        c.id.ok_or_else(|| missing("change", &format!("{} needs id", c.verb)))
    };
    let argv = match c.verb.as_str() {
        "move" => Argv::new(&["move"])
            .opt("reason", c.reason.as_ref())
            .opt("candidate", c.candidate.as_ref())
            .opt("manifest-text", c.manifest.as_ref())
            .opt("issue", c.issue)
            .opt("evidence", c.evidence.as_ref())
            .opt("lease", c.lease.as_ref())
            .arg(Some(id()?))
            .arg(Some(
                c.status
                    .clone()
                    .ok_or_else(|| missing("change", "move needs status"))?,
            )),
        "release" => Argv::new(&["release"]).arg(Some(id()?)),
        "note" => Argv::new(&["note"]).arg(Some(id()?)).arg(Some(
            c.text
                .clone()
                .ok_or_else(|| missing("change", "note needs text"))?,
        )),
        "set" => Argv::new(&["set"])
            .opt("reason", c.reason.as_ref())
            .arg(Some(id()?))
            .arg(Some(
                c.field
                    .clone()
                    .ok_or_else(|| missing("change", "set needs field"))?,
            ))
            .arg(Some(
                c.value
                    .clone()
                    .ok_or_else(|| missing("change", "set needs value"))?,
            )),
        "add" => Argv::new(&["add"])
            .opt(
                "piece",
                Some(
                    c.text
                        .clone()
                        .ok_or_else(|| missing("change", "add needs text (the piece)"))?,
                ),
            )
            .opt("owner", c.owner.as_ref())
            .opt("issues", c.issues.as_ref())
            .opt("gate", c.gate.as_ref())
            .opt("reviewers", c.reviewers.as_ref())
            .opt("brief", c.brief.as_ref())
            .opt("note", c.note.as_ref())
            .opt("status", c.status.as_ref())
            .opt("after", c.after.as_ref()),
        "assign" => Argv::new(&["assign"]).arg(Some(id()?)).arg(Some(
            c.owner
                .clone()
                .ok_or_else(|| missing("change", "assign needs owner"))?,
        )),
        "reclaim" => Argv::new(&["reclaim"])
            .opt(
                "reason",
                Some(
                    c.reason
                        .clone()
                        .ok_or_else(|| missing("change", "reclaim needs reason"))?,
                ),
            )
            .arg(Some(id()?)),
        "lease-default" => Argv::new(&["lease-default"]).arg(Some(
            c.lease
                .clone()
                .ok_or_else(|| missing("change", "lease-default needs lease (or off)"))?,
        )),
        other => {
            return Err(missing(
                "change",
                &format!(
                    "verb {other:?} is none of move, release, note, set, add, assign, reclaim, lease-default"
                ),
            ));
        }
    };
    Ok(argv.change(&c.op, seat).call(Shape::whole()))
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
    let mut call = Argv::new(&["wait"])
        .opt("status", w.status.as_ref())
        .opt("revision-after", w.revision)
        .opt("timeout", Some(timeout))
        .arg(w.id)
        .call(Shape::whole());
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
    let need = |v: Option<&String>, what: &str| {
        v.cloned()
            .ok_or_else(|| missing("review", &format!("{} needs {what}", r.verb)))
    };
    let argv = match r.verb.as_str() {
        "request" => Argv::new(&["review", "request"]).arg(Some(r.id)),
        "record" => Argv::new(&["review", "record"])
            .opt("verdict", Some(need(r.verdict.as_ref(), "verdict")?))
            .opt(
                "comment",
                Some(
                    r.comment
                        .ok_or_else(|| missing("review", "record needs comment"))?,
                ),
            )
            .opt("candidate", Some(need(r.candidate.as_ref(), "candidate")?))
            .arg(Some(r.id)),
        "resolve" => Argv::new(&["review", "resolve"])
            .opt(
                "comment",
                Some(
                    r.comment
                        .ok_or_else(|| missing("review", "resolve needs comment"))?,
                ),
            )
            .arg(Some(r.id))
            .arg(Some(need(r.attempt.as_ref(), "attempt")?)),
        other => {
            return Err(missing(
                "review",
                &format!("verb {other:?} is none of request, record, resolve"),
            ));
        }
    };
    Ok(argv.change(&r.op, seat).call(Shape::whole()))
}
