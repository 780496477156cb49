//! The recording and faulting layer of the real binary (fault-injection build only), set up
//! from the environment: `MOSAIC_IO_TRACE=FILE` appends one JSON line per call to FILE (the
//! bytes of every write, each named step and each printed receipt), from which the tests build
//! the crash states a power loss may leave; `MOSAIC_IO_FAIL=N:FAULT` fails the Nth call with
//! EIO, ENOSPC, EDQUOT, EROFS, EACCES or a short write. Both are one `Tracer` hook on the real
//! calls, so the binary under test is the real one.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::hook::Hook;
use super::trace::{FaultKind, Tracer};

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
pub fn from_env() -> Option<&'static dyn Hook> {
    tracer().map(|t| t as &'static dyn Hook)
}

/// Records a mark in the process's trace, if it records one.
pub fn mark(what: &str, text: &str) {
    if let Some(tracer) = tracer() {
        tracer.mark(what, text);
    }
}
