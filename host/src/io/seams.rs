//! The binary's test seams, read from the environment only by the `fault-injection` build
//! (shipped builds compile every call to nothing, or to the default it is given): the named
//! steps where a write may be killed, the trace and faults put on the real I/O, and the caps
//! and clocks a test may lower or set.
//!
//! `MOSAIC_KILL_AT` names the write step at which the binary SIGKILLs itself,
//! `MOSAIC_LOCK_WAIT_MS` shortens the wait for a live lock, `MOSAIC_BOOT_ID` stands in for the
//! kernel's boot id (a test's reboot), `MOSAIC_NOW_MS` sets the clock,
//! `MOSAIC_GITEA_DEADLINE_MS` shortens the Gitea deadline, `MOSAIC_MCP_MAX_ANSWER` lowers the
//! bound on an MCP answer, `MOSAIC_MCP_FINISH_MS` sets how long a stopping MCP server lets a
//! running verb finish, `MOSAIC_SANDBOX_FUEL` and `MOSAIC_SANDBOX_MEMORY_MIB` lower the
//! sandbox's caps. `MOSAIC_IO_TRACE=FILE` appends one JSON line per I/O call to FILE (the bytes
//! of every write, each named step and each printed receipt), from which the tests build the
//! crash states a power loss may leave; `MOSAIC_IO_FAIL=N:FAULT` fails the Nth call with EIO,
//! ENOSPC, EDQUOT, EROFS, EACCES or a short write. Both are one `Tracer` hook (`io/trace.rs`)
//! on the real calls, so the binary under test is the real one.

#[cfg(feature = "fault-injection")]
use std::path::PathBuf;
#[cfg(feature = "fault-injection")]
use std::sync::OnceLock;
use std::time::Duration;

use super::hook::Hook;
#[cfg(feature = "fault-injection")]
use super::trace::{FaultKind, Tracer};

#[cfg(feature = "fault-injection")]
/// The process's tracer from `MOSAIC_IO_TRACE` and `MOSAIC_IO_FAIL`; `None` when neither is
/// set (or `MOSAIC_IO_FAIL` does not parse, which then fails nothing).
fn tracer() -> Option<&'static Tracer> {
    static TRACER: OnceLock<Option<Tracer>> = OnceLock::new();
    TRACER
        .get_or_init(|| {
            let trace = std::env::var_os("MOSAIC_IO_TRACE").map(PathBuf::from);
            let fail = std::env::var("MOSAIC_IO_FAIL").ok().and_then(|v| {
                let (n, kind) = v.split_once(':')?;
                Some((n.parse().ok()?, FaultKind::parse(kind)?))
            });
            let tracer = match (trace, fail) {
                (None, None) => return None,
                (Some(trace), _) => Tracer::file(trace),
                (None, Some(_)) => Tracer::counting(),
            };
            Some(match fail {
                Some((at, kind)) => tracer.failing(at, kind),
                None => tracer,
            })
        })
        .as_ref()
}

/// The hook `RealIo` passes its calls through in this build.
#[cfg(feature = "fault-injection")]
fn from_env() -> Option<&'static dyn Hook> {
    tracer().map(|t| t as &'static dyn Hook)
}

/// Records a mark in the process's trace, if it records one.
#[cfg(feature = "fault-injection")]
fn mark(what: &str, text: &str) {
    if let Some(tracer) = tracer() {
        tracer.mark(what, text);
    }
}

/// Marks a named step of a write.
#[inline(always)]
pub fn step(name: &str) {
    #[cfg(feature = "fault-injection")]
    mark("step", name);
    #[cfg(feature = "fault-injection")]
    if std::env::var("MOSAIC_KILL_AT").is_ok_and(|at| at == name) {
        let me = rustix::process::getpid();
        let _ = rustix::process::kill_process(me, rustix::process::Signal::KILL);
    }
    #[cfg(not(feature = "fault-injection"))]
    let _ = name;
}

/// How long to wait for a live lock: `default`, unless the fault-injection build is given
/// `MOSAIC_LOCK_WAIT_MS`, so an end-to-end test of a held lock need not sit out the full wait.
#[inline(always)]
pub fn lock_wait(default: Duration) -> Duration {
    #[cfg(feature = "fault-injection")]
    if let Some(ms) = std::env::var("MOSAIC_LOCK_WAIT_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return Duration::from_millis(ms);
    }
    default
}

/// Marks a receipt (or another line a caller may act on) as printed: the point where an op
/// is acknowledged, which the crash-state tests read from the trace.
#[inline(always)]
pub fn printed(line: &str) {
    #[cfg(feature = "fault-injection")]
    mark("printed", line);
    #[cfg(not(feature = "fault-injection"))]
    let _ = line;
}

/// The boot id a test plays (`MOSAIC_BOOT_ID`), so it can run the next command "after a
/// reboot" without one; `None` in shipped builds, where the kernel's is read.
#[inline(always)]
pub fn boot_id() -> Option<String> {
    #[cfg(feature = "fault-injection")]
    if let Ok(boot) = std::env::var("MOSAIC_BOOT_ID") {
        return Some(boot);
    }
    None
}

/// The wall clock, when the fault-injection build is given `MOSAIC_NOW_MS` (milliseconds
/// since the Unix epoch), so a test can write entries in the past; `None` reads the real clock.
#[inline(always)]
pub fn now_millis() -> Option<i64> {
    #[cfg(feature = "fault-injection")]
    if let Some(ms) = std::env::var("MOSAIC_NOW_MS")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
    {
        return Some(ms);
    }
    None
}

/// The most bytes an MCP answer holds: `default`, unless the fault-injection build is given
/// `MOSAIC_MCP_MAX_ANSWER`, so a test reaches the bound with a queue of a few rows.
#[inline(always)]
pub fn mcp_max_answer(default: usize) -> usize {
    #[cfg(feature = "fault-injection")]
    if let Some(bytes) = std::env::var("MOSAIC_MCP_MAX_ANSWER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return bytes;
    }
    default
}

/// How long an MCP server that has stopped reading lets a verb still running finish:
/// `default`, unless the fault-injection build is given `MOSAIC_MCP_FINISH_MS`, so a test can
/// make that wait far longer than any deadline of its own and tell an end the server chose
/// from one that waited out this bound.
#[inline(always)]
pub fn mcp_finish(default: std::time::Duration) -> std::time::Duration {
    #[cfg(feature = "fault-injection")]
    if let Some(ms) = std::env::var("MOSAIC_MCP_FINISH_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    default
}

/// The hook on the real I/O calls (the trace and the injected fault the
/// environment names); `None` in shipped builds.
#[inline(always)]
pub fn io_hook() -> Option<&'static dyn Hook> {
    #[cfg(feature = "fault-injection")]
    return from_env();
    #[cfg(not(feature = "fault-injection"))]
    None
}

/// `MOSAIC_GITEA_DEADLINE_MS` as given (read through `get`, the caller's environment), so an
/// end-to-end test of the deadline need not wait 30 s; `None` in shipped builds.
#[inline(always)]
pub fn gitea_deadline_ms(get: &impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    #[cfg(feature = "fault-injection")]
    return get("MOSAIC_GITEA_DEADLINE_MS").map(|v| v.to_string_lossy().into_owned());
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = get;
        None
    }
}

/// The sandbox's caps (fuel, memory in bytes): the shipped ones, unless the fault-injection
/// build is given `MOSAIC_SANDBOX_FUEL` or `MOSAIC_SANDBOX_MEMORY_MIB`.
#[inline(always)]
pub fn sandbox_caps(fuel: u64, memory: usize) -> (u64, usize) {
    #[cfg(feature = "fault-injection")]
    let (fuel, memory) = {
        let number = |name: &str| std::env::var(name).ok()?.parse::<u64>().ok();
        (
            number("MOSAIC_SANDBOX_FUEL").unwrap_or(fuel),
            number("MOSAIC_SANDBOX_MEMORY_MIB").map_or(memory, |mib| (mib as usize) << 20),
        )
    };
    (fuel, memory)
}

/// The steps a write passes, in order; the kill-point tests walk this list.
pub const WRITE_STEPS: &[&str] = &[
    "lock-taken",
    "queue-temp-written",
    "queue-renamed",
    "queue-dir-synced",
    "witness-temp-written",
    "witness-renamed",
    "witness-dir-synced",
    "table-temp-written",
    "table-renamed",
    "receipt-printed",
];

/// The steps of a cut (`archive`): the lock, the archive placed (its folder, its temp file,
/// its link, the folder's fsync), then the write of queue.json that names it.
pub const CUT_STEPS: &[&str] = &[
    "lock-taken",
    "archive-dir-created",
    "archive-temp-written",
    "archive-placed",
    "archive-dir-synced",
    "archive-written",
    "queue-temp-written",
    "queue-renamed",
    "queue-dir-synced",
    "witness-temp-written",
    "witness-renamed",
    "witness-dir-synced",
    "table-temp-written",
    "table-renamed",
    "receipt-printed",
];

/// The steps of one follower round (docs/replication.md): the commit's objects written, the
/// push returned, then the record written by temp file, rename and the fsync of `.git`.
pub const FOLLOW_STEPS: &[&str] = &[
    "follow-committed",
    "follow-pushed",
    "replicated-temp-written",
    "replicated-renamed",
    "replicated-dir-synced",
];

/// The steps of the fence's write, when the follower finds the queue adopted elsewhere.
pub const FENCE_STEPS: &[&str] = &["fence-temp-written", "fence-renamed"];

/// The steps of `adopt` (docs/replication.md): the lock, its entry pushed to the ref, then the
/// files installed (queue.json, its witness, QUEUE.md), the record, and the end.
pub const ADOPT_STEPS: &[&str] = &[
    "lock-taken",
    "adopt-pushed",
    "adopt-queue-temp-written",
    "adopt-queue-renamed",
    "witness-temp-written",
    "witness-renamed",
    "witness-dir-synced",
    "adopt-table-temp-written",
    "adopt-table-renamed",
    "replicated-temp-written",
    "replicated-renamed",
    "replicated-dir-synced",
    "adopt-installed",
];

/// The steps a review request passes after its attempt's write (docs/durability.md): before
/// the POST, after it, and after the outcome entry.
pub const REQUEST_STEPS: &[&str] = &["request-sending", "request-posted", "outcome-logged"];

/// The steps only a retry passes that confirms a tail a killed writer left visible: queue.json
/// written again from the verified bytes, renamed, and docs/plans fsynced (then the witness's
/// steps of `WRITE_STEPS`).
pub const CONFIRM_STEPS: &[&str] = &[
    "confirm-temp-written",
    "confirm-renamed",
    "confirm-dir-synced",
];
