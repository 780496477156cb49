//! The one way a tool call reaches the queue: its request run by the engine in this thread,
//! under the server's policy, into a `reply::Gathered`, which ends as the document, exit code
//! and warnings the CLI's `--json` gives. No second write path: the store session, op rules,
//! retries and refusals are the engine's, as for every face.

use crate::engine::{self, Policy, Request};
use crate::reply::{Failure, Finished, Gathered};

/// Runs `request` under `policy` with its answer as `--json` gives it, in this thread, on
/// the checkout around the working directory. Blocks for as long as the verb does (a lock
/// wait, `wait`).
pub fn run(request: Request, policy: &Policy) -> Finished {
    let (verb, change) = (request.name(), request.is_change());
    let mut gathered = Gathered::new(true);
    let result = engine::run(request, policy, &mut gathered);
    gathered.finish(verb, change, &result)
}

/// The `{"error": {...}}` document the CLI prints for `failure`, for a refusal the server
/// makes itself (arguments no verb takes, an answer too large to send).
pub fn error_document(failure: &Failure) -> String {
    String::from_utf8_lossy(&failure.document(Vec::new())).into_owned()
}
