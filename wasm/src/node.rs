//! wasm-bindgen exports for the Node shim (`node-shim/index.mjs`): the core API over bytes and
//! strings. Structured answers cross as JSON text and writes as a `Written`; refusals become
//! JS `Error`s with the core's `kind()` as `code` (see `refusal`).

mod command;
mod leases;
mod refusal;

pub use command::read as read_command;

use mosaic_queue_core::{
    BodyStatus, GenesisArgs, Outcome, Queue, ReviewRequest, Row, markdown, migration, one_line,
    parse_lenient, parse_queue, to_canonical,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use refusal::{ArgumentError, Refusal};

/// A queue after a write (or a recorded op's retry): the new canonical bytes, the receipt to
/// print, and the table body to put between QUEUE.md's markers.
#[wasm_bindgen]
pub struct Written {
    bytes: Vec<u8>,
    receipt: String,
    body: String,
    revision: u64,
    recorded: bool,
    request: Option<ReviewRequest>,
}

#[wasm_bindgen]
impl Written {
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn receipt(&self) -> String {
        self.receipt.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn body(&self) -> String {
        self.body.clone()
    }

    /// A JS number: canonical files hold no integer past 2^53-1, so nothing is lost.
    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> f64 {
        self.revision as f64
    }

    /// True when the op was already in the log and nothing changed.
    #[wasm_bindgen(getter)]
    pub fn recorded(&self) -> bool {
        self.recorded
    }

    /// The review request attempt the op opened, as JSON (`id`, `issue`, `attempt`, `login`,
    /// `body`), or `null`: what the caller posts next, as the native CLI does.
    #[wasm_bindgen(getter)]
    pub fn request(&self) -> String {
        #[derive(Serialize)]
        struct Request<'a> {
            id: u64,
            issue: u64,
            attempt: &'a str,
            login: &'a str,
            body: &'a str,
        }
        json(&self.request.as_ref().map(|r| Request {
            id: r.id,
            issue: r.issue,
            attempt: &r.attempt,
            login: &r.login,
            body: &r.body,
        }))
    }
}

impl Written {
    fn of(queue: &Queue, receipt: String, recorded: bool) -> Written {
        Written {
            bytes: queue.to_bytes(),
            receipt,
            body: queue.render_body(),
            revision: queue.revision(),
            recorded,
            request: None,
        }
    }
}

/// Answers are written the way the core writes files, which also shares the row serializer
/// with `to_canonical` instead of compiling a second one into the module.
fn json<T: Serialize>(value: &T) -> String {
    // serde_json writes UTF-8 only, so the lossy path is never taken.
    String::from_utf8(to_canonical(value))
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Reads JSON the shim built from a JS value; through `from_slice`, as the core reads files,
/// so the deserializers the core already has are reused.
fn from_json<T: DeserializeOwned>(what: &'static str, text: &str) -> Result<T, Refusal> {
    serde_json::from_slice(text.as_bytes()).map_err(|e| misfit(what, &e))
}

fn misfit(what: &'static str, e: &serde_json::Error) -> Refusal {
    ArgumentError::Json {
        what,
        message: one_line(&e.to_string()),
    }
    .into()
}

/// Checks that `bytes` are a canonical queue file, without replaying its log; answers the
/// document as JSON text.
#[wasm_bindgen]
pub fn parse(bytes: &[u8]) -> Result<String, Refusal> {
    parse_queue(bytes)?;
    // Canonical bytes are UTF-8, or parsing would have refused them.
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The canonical bytes of a queue document given as any JSON text with its fields (key order
/// and layout free); the schema is checked, the log is not replayed.
#[wasm_bindgen]
pub fn serialize(json_text: &str) -> Result<Vec<u8>, Refusal> {
    let file: mosaic_queue_core::QueueFile = parse_lenient(json_text.as_bytes())?;
    Ok(to_canonical(&file))
}

#[derive(Serialize)]
struct Verified {
    revision: u64,
    rows: usize,
}

/// Parses, checks the bytes canonical and replays the log: `{"revision", "rows"}` (a count).
#[wasm_bindgen]
pub fn verify(bytes: &[u8]) -> Result<String, Refusal> {
    let queue = Queue::verify(bytes)?;
    Ok(json(&Verified {
        revision: queue.revision(),
        rows: queue.rows().len(),
    }))
}

#[derive(Serialize)]
struct Replayed<'a> {
    revision: u64,
    branch: Option<&'a str>,
    root: Option<&'a str>,
    rows: &'a [Row],
    reasons: Vec<Reason<'a>>,
}

#[derive(Serialize)]
struct Reason<'a> {
    id: u64,
    reason: &'a str,
}

/// `verify`, answering the replayed state: revision, genesis branch and root, rows, and each
/// row's latest move reason (what the table shows beside the status).
#[wasm_bindgen]
pub fn replay(bytes: &[u8]) -> Result<String, Refusal> {
    let queue = Queue::verify(bytes)?;
    let state = queue.state();
    Ok(json(&Replayed {
        revision: queue.revision(),
        branch: state.branch.as_deref(),
        root: state.root.as_deref(),
        rows: queue.rows(),
        reasons: state
            .move_reasons()
            .map(|(id, reason)| Reason { id, reason })
            .collect(),
    }))
}

/// A new queue from genesis arguments (JSON of the core's `GenesisArgs`).
#[wasm_bindgen]
pub fn genesis(args_json: &str, op: &str, by: &str, at: &str) -> Result<Written, Refusal> {
    let args: GenesisArgs = from_json("genesis arguments", args_json)?;
    let (queue, receipt) = Queue::genesis(args, op, by, at)?;
    Ok(Written::of(&queue, receipt, false))
}

/// Applies a command (JSON of the core's `Command`) as `op` by `by` at `at`. Without
/// `semantics` this is a write (a recorded op answers with its receipt); with it, the command
/// is normalized and appended as a historic entry under those semantics.
#[wasm_bindgen]
pub fn apply(
    bytes: &[u8],
    command_json: &str,
    op: &str,
    by: &str,
    at: &str,
    semantics: Option<u8>,
) -> Result<Written, Refusal> {
    let command = command::read(command_json).map_err(|e| misfit("command", &e))?;
    let mut queue = Queue::verify(bytes)?;
    let (receipt, recorded, request) = match semantics {
        None => match queue.execute(&command, op, by, at)? {
            Outcome::Applied {
                receipt, request, ..
            } => (receipt, false, request),
            Outcome::Recorded {
                receipt, request, ..
            } => (receipt, true, request),
            // Nothing written: the bytes are the input's, like a recorded op's.
            outcome @ Outcome::NothingToTake { .. } => {
                (String::from(outcome.receipt()), true, None)
            }
        },
        Some(semantics) => {
            let args = command.normalize(queue.state(), queue.revision() + 1, by, at)?;
            (
                queue.append_entry(args, op, by, at, semantics)?,
                false,
                None,
            )
        }
    };
    Ok(Written {
        request,
        ..Written::of(&queue, receipt, recorded)
    })
}

/// The table body for a verified queue.
#[wasm_bindgen(js_name = renderBody)]
pub fn render_body(bytes: &[u8]) -> Result<String, Refusal> {
    Ok(Queue::verify(bytes)?.render_body())
}

#[derive(Serialize)]
struct Status {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rev: Option<u64>,
}

/// Whether `body` (the text between QUEUE.md's markers) is `current`, `stale` (with the `rev`
/// that rendered it) or `unknown`.
#[wasm_bindgen(js_name = bodyStatus)]
pub fn body_status(bytes: &[u8], body: &str) -> Result<String, Refusal> {
    let (status, rev) = match Queue::verify(bytes)?.body_status(body) {
        BodyStatus::Current => ("current", None),
        BodyStatus::Stale { rev } => ("stale", Some(rev)),
        BodyStatus::Unknown => ("unknown", None),
    };
    Ok(json(&Status { status, rev }))
}

/// The text between QUEUE.md's marker lines.
#[wasm_bindgen(js_name = tableBody)]
pub fn table_body(md: &str) -> Result<String, Refusal> {
    Ok(markdown::body(md)?.to_owned())
}

/// QUEUE.md with its body replaced and the hand-written text around it kept.
#[wasm_bindgen]
pub fn splice(md: &str, body: &str) -> Result<String, Refusal> {
    Ok(markdown::splice(md, body)?)
}

/// The row `seat` should take up next, as JSON, or `null`.
#[wasm_bindgen]
pub fn next(bytes: &[u8], seat: &str) -> Result<String, Refusal> {
    Ok(json(&Queue::verify(bytes)?.next(seat)))
}

/// Genesis arguments (JSON) from a migration map, the genesis branch and root, and the
/// QUEUE.md whose body becomes the legacy view.
#[wasm_bindgen(js_name = genesisArgs)]
pub fn genesis_args(
    map_md: &str,
    branch: &str,
    root: &str,
    queue_md: &str,
) -> Result<String, Refusal> {
    let args = migration::parse(map_md)?.genesis_args(branch, root, queue_md)?;
    Ok(json(&args))
}

/// What changed between a migration map and the current QUEUE.md (`source_md` is the blob the
/// map names): `{"lines": [...], "rows": [...]}`, both empty when nothing drifted.
#[wasm_bindgen(js_name = mapDrift)]
pub fn map_drift(map_md: &str, source_md: &str, current_md: &str) -> Result<String, Refusal> {
    let parsed = migration::parse(map_md)?;
    Ok(json(&migration::drift(&parsed, source_md, current_md)))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot {
    revision: u64,
    base_revision: Option<u64>,
}

/// The snapshot verdict for `queue.json` and `QUEUE.md` bytes, against a base queue.json
/// when given (through the snapshot's archives, packed as `sandbox::pack_archives` packs
/// them, where the base is older than its cut): `{"revision", "baseRevision"}`.
#[wasm_bindgen(js_name = verifySnapshot)]
pub fn verify_snapshot(
    json_bytes: &[u8],
    md: &[u8],
    base: Option<Vec<u8>>,
    archives: Option<Vec<u8>>,
) -> Result<String, Refusal> {
    let archives = unpacked(archives.as_deref().unwrap_or_default())?;
    let verdict =
        mosaic_queue_core::verify_snapshot_archived(json_bytes, md, base.as_deref(), &archives)?;
    Ok(json(&Snapshot {
        revision: verdict.revision,
        base_revision: verdict.base_revision,
    }))
}

fn unpacked(packed: &[u8]) -> Result<Vec<&[u8]>, Refusal> {
    mosaic_queue_core::sandbox::unpack_archives(packed)
        .map_err(|e| ArgumentError::Archives(e.0).into())
}

/// `verify --full`: the archives 1..K (packed as `sandbox::pack_archives` packs them, in
/// order) and queue.json; every epoch entry recomputed from its archive. `{"revision", "rows"}`.
#[wasm_bindgen(js_name = verifyFull)]
pub fn verify_full(archives: &[u8], active: &[u8]) -> Result<String, Refusal> {
    let archives = unpacked(archives)?;
    let queue = mosaic_queue_core::verify_full(&archives, active)?;
    Ok(json(&Verified {
        revision: queue.revision(),
        rows: queue.rows().len(),
    }))
}
