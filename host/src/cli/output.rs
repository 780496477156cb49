//! Where a command's stdout goes. Without `--json` every line is written as it comes; with
//! `--json` it is gathered, and `finish` prints the one JSON document the command ends with:
//! a read's own document, a change's receipt object, a `{verb, text}` object for the other
//! verbs, or `{"error": ...}` (docs/json.md holds the shapes). The state is per thread, and
//! `captured` keeps one run's stdout and stderr in memory: the MCP server runs each tool call's
//! verb on its own thread and answers with what it printed.

use std::cell::{Cell, RefCell};

use mosaic_queue_core::Queue;
use mosaic_queue_core::canon::to_canonical;
use mosaic_queue_core::entry::{Args, Entry, Verb};
use serde::Serialize;

use super::{CliResult, Failure};

thread_local! {
    static JSON: Cell<bool> = const { Cell::new(false) };
    static GATHERED: RefCell<Gathered> = const { RefCell::new(Gathered::new()) };
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// What a `--json` run has produced so far.
struct Gathered {
    /// Everything the command would have printed without `--json`.
    text: String,
    /// The receipt object of each log entry the command printed, in order.
    receipts: Vec<ReceiptJson>,
    /// A read's own document, printed as it is.
    document: Option<String>,
}

impl Gathered {
    const fn new() -> Gathered {
        Gathered {
            text: String::new(),
            receipts: Vec::new(),
            document: None,
        }
    }
}

fn gathered<T>(f: impl FnOnce(&mut Gathered) -> T) -> T {
    GATHERED.with_borrow_mut(f)
}

/// Turns `--json` on for the rest of this thread's commands.
pub fn set_json(on: bool) {
    JSON.set(on);
}

pub fn json() -> bool {
    JSON.get()
}

/// What one run printed while `captured` held its output.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    pub stdout: String,
    /// The stderr lines, each ending in a newline.
    pub stderr: String,
}

/// Runs `f` with this thread's stdout and stderr kept in memory instead of written, from a
/// clean start (no `--json`, nothing gathered), and returns what it printed.
pub fn captured<T>(f: impl FnOnce() -> T) -> (T, Captured) {
    JSON.set(false);
    gathered(|g| *g = Gathered::new());
    CAPTURE.set(Some(Captured::default()));
    let value = f();
    let out = CAPTURE.take().unwrap_or_default();
    JSON.set(false);
    gathered(|g| *g = Gathered::new());
    (value, out)
}

/// Keeps a stderr line when `captured` runs on this thread; false: write it as usual.
pub(super) fn capture_stderr(line: &str) -> bool {
    CAPTURE.with_borrow_mut(|c| match c {
        Some(c) => {
            c.stderr.push_str(line);
            c.stderr.push('\n');
            true
        }
        None => false,
    })
}

/// Writes `text` to stdout, or gathers it with `--json`. A closed stdout
/// (`mosaic-queue list | head`) must not panic: the command fails with exit 1 and one line on
/// stderr instead.
pub fn out(text: &str) -> CliResult {
    if json() {
        gathered(|g| g.text.push_str(text));
        return Ok(());
    }
    write_stdout(text)
}

fn write_stdout(text: &str) -> CliResult {
    use std::io::Write;
    let kept = CAPTURE.with_borrow_mut(|c| c.as_mut().map(|c| c.stdout.push_str(text)));
    if kept.is_some() {
        crate::seam::printed(text);
        return Ok(());
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))?;
    // The crash-state tests read from the trace when each line (a receipt) was printed.
    crate::seam::printed(text);
    Ok(())
}

/// A read's JSON document (canonical form): printed as it is with `--json`.
pub fn document<T: Serialize>(value: &T) -> CliResult {
    document_bytes(to_canonical(value))
}

/// A read's JSON document already in canonical bytes.
pub fn document_bytes(bytes: Vec<u8>) -> CliResult {
    // Canonical JSON is UTF-8; the lossy pass (a scan of every byte) only runs if it is not.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if json() {
        gathered(|g| g.document = Some(text));
        return Ok(());
    }
    write_stdout(&text)
}

/// The row a log entry touched: every verb's arguments name it but genesis and accept-history.
pub fn entry_row(args: &Args) -> Option<u64> {
    match args {
        Args::Genesis(_) | Args::AcceptHistory(_) => None,
        Args::Add(a) => Some(a.id),
        Args::Move(a) => Some(a.id),
        Args::Release(a) | Args::ReviewRequest(a) | Args::Take(a) => Some(a.id),
        Args::Assign(a) => Some(a.id),
        Args::Note(a) => Some(a.id),
        Args::Set(a) => Some(a.id),
        Args::ReviewOutcome(a) => Some(a.id),
        Args::ReviewResolve(a) => Some(a.id),
        Args::ReviewAbandon(a) => Some(a.id),
        Args::ReviewRecord(a) => Some(a.id),
    }
}

/// A log entry's receipt as `--json` prints it; `recorded` when the op was already in the log
/// and this is its original receipt. `then`: the entries the same command logged after it (a
/// review request's outcome).
#[derive(Serialize, Debug)]
pub struct ReceiptJson {
    op: String,
    revision: u64,
    verb: Verb,
    row: Option<u64>,
    recorded: bool,
    text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    then: Vec<ReceiptJson>,
}

impl ReceiptJson {
    pub fn new(entry: &Entry, recorded: bool) -> ReceiptJson {
        ReceiptJson {
            op: entry.op.clone(),
            revision: entry.rev,
            verb: entry.verb,
            row: entry_row(&entry.args),
            recorded,
            text: entry.receipt.clone(),
            then: Vec::new(),
        }
    }
}

/// `{"error": {...}}`; `written`: the receipts of entries the command logged before it failed.
#[derive(Serialize)]
struct ErrorDoc<'a> {
    error: ErrorJson<'a>,
}

#[derive(Serialize)]
pub struct ErrorJson<'a> {
    exit: i32,
    kind: &'a str,
    message: &'a str,
    next: String,
    retryable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    written: Vec<ReceiptJson>,
}

impl ErrorJson<'_> {
    pub fn new(f: &Failure) -> ErrorJson<'_> {
        ErrorJson {
            exit: f.exit.code(),
            kind: f.kind_name(),
            message: &f.message,
            next: f.next(),
            retryable: f.retryable(),
            written: Vec::new(),
        }
    }
}

/// What the other verbs print: their name and the text they print without `--json`.
#[derive(Serialize)]
struct TextDoc<'a> {
    verb: &'a str,
    text: &'a str,
}

/// Prints a log entry's receipt. One that cannot be printed leaves its op durable but
/// unacknowledged, which is exit 3: the caller retries the same op and gets the receipt from
/// the log. With `--json` the receipt joins the document `finish` prints.
pub fn receipt(entry: &Entry, recorded: bool) -> CliResult {
    if json() {
        gathered(|g| {
            g.text.push_str(&entry.receipt);
            g.text.push('\n');
            g.receipts.push(ReceiptJson::new(entry, recorded));
        });
        return Ok(());
    }
    write_stdout(&format!("{}\n", entry.receipt)).map_err(|f| {
        Failure::uncertain(format!(
            "{}; the op is written but its receipt did not print: retry the same op",
            f.message
        ))
    })
}

/// Prints the receipt of `op`'s entry in `queue`: the newest entry after a write, or the
/// entry recorded earlier for a retried op.
pub fn receipt_of(queue: &Queue, op: &str, recorded: bool) -> CliResult {
    let entry = match queue.file().log.last() {
        Some(last) if last.op == op => Some(last),
        _ => queue.entry_for_op(op),
    };
    match entry {
        Some(e) => receipt(e, recorded),
        None => Err(Failure::failed(format!(
            "op {op} has no entry in the log to print; run `mosaic-queue verify`"
        ))),
    }
}

/// What a store session calls once `op` is durable (or found recorded): prints its receipt.
pub fn acknowledge(op: &str) -> impl FnOnce(&Queue, bool) -> CliResult + '_ {
    move |queue, recorded| receipt_of(queue, op, recorded)
}

/// Ends a `--json` run: prints its one document and returns the exit code. `verb` is the
/// command's name; `change` whether it is a verb that writes one log entry (its receipt is the
/// document). A failure's line still goes to stderr (the caller prints it).
pub fn finish(verb: &str, change: bool, result: &CliResult) -> i32 {
    let (text, code) = gathered(|g| document_of(g, verb, change, result));
    print_or(text, code, change)
}

/// The document `finish` prints for what `g` gathered, and the exit code.
fn document_of(g: &mut Gathered, verb: &str, change: bool, result: &CliResult) -> (String, i32) {
    let (text, code) = match result {
        // A report that exits 2 (doctor) still answers with its own document.
        Err(f) if g.document.is_some() && f.exit == crate::exit::Exit::Refused => {
            let text = g.document.take().unwrap_or_default();
            return (text, f.exit.code());
        }
        Err(f) => {
            let mut error = ErrorJson::new(f);
            // Entries this command wrote before it failed (a review request's move).
            error.written = std::mem::take(&mut g.receipts);
            (to_canonical(&ErrorDoc { error }), f.exit.code())
        }
        Ok(()) => match g.document.take() {
            Some(text) => return (text, 0),
            None if change && !g.receipts.is_empty() => {
                let mut receipts = std::mem::take(&mut g.receipts);
                let mut first = receipts.remove(0);
                first.then = receipts;
                (to_canonical(&first), 0)
            }
            None => {
                let text = g.text.strip_suffix('\n').unwrap_or(&g.text);
                (to_canonical(&TextDoc { verb, text }), 0)
            }
        },
    };
    (String::from_utf8_lossy(&text).into_owned(), code)
}

/// Prints the final document. A stdout that cannot take it turns success into exit 1, or 3
/// after a change: its op is written but unacknowledged, and a retry of the same op prints it.
fn print_or(text: String, code: i32, change: bool) -> i32 {
    match write_stdout(&text) {
        Ok(()) => code,
        Err(f) => {
            super::warn(&format!("mosaic-queue: {}", f.message));
            match code {
                0 if change => 3,
                0 => 1,
                c => c,
            }
        }
    }
}
