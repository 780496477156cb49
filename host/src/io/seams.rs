//! The recording and faulting I/O layers (fault-injection build only). `MOSAIC_IO_TRACE=FILE`
//! appends one JSON line per call to FILE (the bytes of every write, each named step and each
//! printed receipt), from which the tests build the crash states a power loss may leave;
//! `MOSAIC_IO_FAIL=N:FAULT` fails the Nth call with EIO, ENOSPC, EDQUOT, EROFS, EACCES or a
//! short write. Both are `Hook`s on the real calls, so the binary under test is the real one.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::io::Errno;

use super::{Call, Fault, Hook};

/// A fault the sweep injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    Eio,
    Enospc,
    Edquot,
    Erofs,
    Eacces,
    /// Half the bytes of a write land, then ENOSPC; any other call gets EIO.
    Short,
}

impl FaultKind {
    pub const ALL: [FaultKind; 6] = [
        FaultKind::Eio,
        FaultKind::Enospc,
        FaultKind::Edquot,
        FaultKind::Erofs,
        FaultKind::Eacces,
        FaultKind::Short,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Eio => "eio",
            FaultKind::Enospc => "enospc",
            FaultKind::Edquot => "edquot",
            FaultKind::Erofs => "erofs",
            FaultKind::Eacces => "eacces",
            FaultKind::Short => "short",
        }
    }

    fn parse(s: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == s)
    }

    fn fault(self, call: &Call<'_>) -> Fault {
        let errno = match self {
            FaultKind::Eio => Errno::IO,
            FaultKind::Enospc => Errno::NOSPC,
            FaultKind::Edquot => Errno::DQUOT,
            FaultKind::Erofs => Errno::ROFS,
            FaultKind::Eacces => Errno::ACCESS,
            FaultKind::Short if matches!(call, Call::Write(..)) => return Fault::Short,
            FaultKind::Short => Errno::IO,
        };
        Fault::Fail(io::Error::from_raw_os_error(errno.raw_os_error()))
    }
}

/// Records every call to a trace file and fails the one call a test names. One per process;
/// calls are numbered from 1 in the order they are made.
#[derive(Debug)]
pub struct Seams {
    trace: Option<PathBuf>,
    fail: Option<(u64, FaultKind)>,
    count: AtomicU64,
}

impl Seams {
    /// A recording layer: every call to `trace`.
    pub fn recording(trace: PathBuf) -> Seams {
        Seams {
            trace: Some(trace),
            fail: None,
            count: AtomicU64::new(0),
        }
    }

    /// A faulting layer: call number `at` fails with `kind`; `trace` records as well.
    pub fn faulting(at: u64, kind: FaultKind, trace: Option<PathBuf>) -> Seams {
        Seams {
            trace,
            fail: Some((at, kind)),
            count: AtomicU64::new(0),
        }
    }

    fn log(&self, line: serde_json::Value) {
        let Some(path) = &self.trace else { return };
        // Appended and closed per line, so a SIGKILL loses nothing already recorded.
        let mut text = line.to_string();
        text.push('\n');
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()));
    }

    /// Records a named point that is not a call: a write step, a printed receipt.
    pub fn mark(&self, what: &str, text: &str) {
        let n = self.count.load(Ordering::Relaxed);
        self.log(serde_json::json!({"n": n, "ev": what, "text": text}));
    }
}

fn p(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn describe(call: &Call<'_>) -> serde_json::Value {
    use serde_json::json;
    match *call {
        Call::Read(a) => json!({"op": "read", "path": p(a)}),
        Call::List(a) => json!({"op": "list", "path": p(a)}),
        Call::Stat(a) => json!({"op": "stat", "path": p(a)}),
        Call::Statfs(a) => json!({"op": "statfs", "path": p(a)}),
        Call::Create(a) => json!({"op": "create", "path": p(a)}),
        Call::Write(a, pieces) => {
            let hex: String = pieces.iter().map(|b| hex(b)).collect();
            json!({"op": "write", "path": p(a), "hex": hex})
        }
        Call::Fsync(a) => json!({"op": "fsync", "path": p(a)}),
        Call::Rename(a, b) => json!({"op": "rename", "path": p(a), "to": p(b)}),
        Call::Link(a, b) => json!({"op": "link", "path": p(a), "to": p(b)}),
        Call::Unlink(a) => json!({"op": "unlink", "path": p(a)}),
        Call::FsyncDir(a) => json!({"op": "fsync_dir", "path": p(a)}),
    }
}

/// A call as the sweep counts it: what and where, without the bytes.
fn describe_brief(call: &Call<'_>) -> serde_json::Value {
    let mut v = describe(call);
    if let Some(map) = v.as_object_mut() {
        map.remove("hex");
    }
    v
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn with(mut v: serde_json::Value, n: u64, ev: &str) -> serde_json::Value {
    v["n"] = n.into();
    v["ev"] = ev.into();
    v
}

impl Hook for Seams {
    fn before(&self, call: &Call<'_>) -> Option<Fault> {
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        self.log(with(describe_brief(call), n, "call"));
        match self.fail {
            Some((at, kind)) if at == n => {
                self.log(with(describe(call), n, "fault"));
                Some(kind.fault(call))
            }
            _ => None,
        }
    }

    fn after(&self, call: &Call<'_>) {
        let n = self.count.load(Ordering::Relaxed);
        self.log(with(describe(call), n, "ok"));
    }
}

/// The process's layer from `MOSAIC_IO_TRACE` and `MOSAIC_IO_FAIL`; `None` when neither is set
/// (or `MOSAIC_IO_FAIL` does not parse, which then fails nothing).
fn seams() -> Option<&'static Seams> {
    static SEAMS: OnceLock<Option<Seams>> = OnceLock::new();
    SEAMS
        .get_or_init(|| {
            let trace = std::env::var_os("MOSAIC_IO_TRACE").map(PathBuf::from);
            let fail = std::env::var("MOSAIC_IO_FAIL").ok().and_then(|v| {
                let (n, kind) = v.split_once(':')?;
                Some((n.parse().ok()?, FaultKind::parse(kind)?))
            });
            match (trace, fail) {
                (None, None) => None,
                (trace, Some((at, kind))) => Some(Seams::faulting(at, kind, trace)),
                (Some(trace), None) => Some(Seams::recording(trace)),
            }
        })
        .as_ref()
}

/// The hook `RealIo` passes its calls through in this build.
pub fn from_env() -> Option<&'static dyn Hook> {
    seams().map(|s| s as &'static dyn Hook)
}

/// Records a mark in the process's trace, if it records one.
pub fn mark(what: &str, text: &str) {
    if let Some(seams) = seams() {
        seams.mark(what, text);
    }
}
