//! The answer `verify --snapshot` prints from, whichever way the core ran: natively, or in the
//! sandbox and decoded from its result buffer (`mosaic_queue_core::sandbox` defines both the
//! answer and the buffer). Two answers compare equal exactly when the CLI would print the same
//! line, which is what the differential test checks.

pub use mosaic_queue_core::sandbox::{Answer, Reason, Refusal};
use mosaic_queue_core::verify_snapshot;

/// The core run natively: the reference the sandbox is held to.
pub fn native(json: &[u8], md: &[u8], base: Option<&[u8]>) -> Answer {
    verify_snapshot(json, md, base).map_err(|e| Refusal::from(&e))
}
