//! A server that cannot start (no seat, no checkout, a `--root` that cannot be entered) says
//! why where its client looks: it answers the client's first request (`initialize`) with a
//! JSON-RPC error whose message is the refusal's line, then ends with the refusal's exit.
//! Clients show that error; of stderr most show nothing but "connection closed".

use std::time::Duration;

use rmcp::model::{ErrorCode, ErrorData, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::transport::Lines;
use crate::reply::Failure;

/// How long a refused server waits for a first request before it ends anyway.
const FIRST_REQUEST_WITHIN: Duration = Duration::from_secs(10);

/// Answers the first request on `input` with `failure`, then gives the failure back for the
/// process to end with; input that ends first, or none within `FIRST_REQUEST_WITHIN`, is
/// answered with nothing.
pub fn answer<R, W>(failure: Failure, input: R, output: W) -> Failure
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    else {
        return failure;
    };
    runtime.block_on(async {
        let mut lines = Lines::new(input, output, CancellationToken::new());
        let first = tokio::time::timeout(FIRST_REQUEST_WITHIN, async {
            loop {
                match lines.receive().await {
                    Some(JsonRpcMessage::Request(r)) => return Some(r.id),
                    Some(_) => continue,
                    None => return None,
                }
            }
        });
        if let Ok(Some(id)) = first.await {
            let document = serde_json::from_slice(&failure.document(Vec::new())).ok();
            let error =
                ErrorData::new(ErrorCode::INTERNAL_ERROR, failure.message.clone(), document);
            // A client gone away has nothing to be told.
            let _ = lines
                .send(ServerJsonRpcMessage::error(error, Some(id)))
                .await;
        }
    });
    // The thread blocked reading stdin is left to the process's exit.
    runtime.shutdown_background();
    failure
}
