//! `mosaic-queue mcp --seat SEAT`: the queue as an MCP server on stdio for one seat, fixed
//! for the server's life. Each tool call's arguments become the engine's request (`call`),
//! run in this process under the server's policy (`verb`), its document paged (`paging`);
//! between calls the server holds no lock and no queue state. docs/mcp.md has the tools.

mod batch;
mod call;
mod in_flight;
mod json_text;
mod message;
mod numbers;
mod output;
pub mod paging;
mod refused;
pub mod renew;
mod server;
pub mod tools;
pub mod transport;
mod verb;

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use rmcp::service::ServerInitializeError;

use self::in_flight::Running;
use crate::engine::{self, Policy};
use crate::reply::{Failure, Replied};

/// How long the server, once it stops reading, lets a verb still running finish (a lock wait
/// is at most 30 s) before the process ends.
const FINISH: Duration = Duration::from_secs(35);

/// `mosaic-queue mcp [--seat SEAT]`: refuses a missing or invalid seat, and a working
/// directory outside a checkout, before serving stdin and stdout. A refused start answers
/// the client's first request with its line too (`refused.rs`), since a client shows that
/// where it shows nothing of stderr.
pub fn serve_stdio(seat: Option<String>, policy: Policy) -> Replied {
    match engine::server_seat(seat) {
        Ok(seat) => serve(&seat, policy, tokio::io::stdin(), tokio::io::stdout()),
        Err(f) => Err(refused::answer(f, tokio::io::stdin(), tokio::io::stdout())),
    }
}

/// Serves MCP for `seat` on `input` and `output` until input ends (exit 0), on a runtime of
/// one thread; the verbs run on its blocking pool. What the OpenSSH gate runs too. A call that
/// leaves a lock of this process behind ends the server once it has answered (exit 1).
pub fn serve<R, W>(seat: &str, policy: Policy, input: R, output: W) -> Replied
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| Failure::failed(format!("cannot start the MCP server: {e}")))?;
    let closing = CancellationToken::new();
    let running = Arc::new(Running::default());
    let served = runtime.block_on(async {
        // The seat's claims are renewed while the server runs, and no longer.
        let renewing = tokio::spawn(renew::run(seat.to_owned(), closing.clone()));
        let transport = transport::Lines::new(input, output, closing.clone());
        let handler = server::Server::new(seat, policy.clone(), closing.clone(), running.clone());
        let served = loop {
            match rmcp::serve_server(handler.clone(), transport.clone()).await {
                Ok(running) => {
                    break running.waiting().await.map(drop).map_err(|e| e.to_string());
                }
                // Input that ended before the handshake finished is a client gone.
                Err(ServerInitializeError::ConnectionClosed(_)) => break Ok(()),
                // A message the SDK does not take before the handshake (a notification, a
                // response) ends its handshake; no message ends the server: it begins again
                // on the same stream. A failed initialize was answered with its error.
                Err(
                    ServerInitializeError::ExpectedInitializeRequest(_)
                    | ServerInitializeError::InitializeFailed(_),
                ) => continue,
                Err(e) => break Err(e.to_string()),
            }
        };
        renewing.abort();
        served
    });
    // Waits end at once; a verb still writing finishes. The pool's thread blocked reading
    // stdin (when the server ends with its input open) is left to the process's exit.
    closing.cancel();
    running.wait_idle(crate::io::seams::mcp_finish(FINISH));
    runtime.shutdown_background();
    served.map_err(|e| Failure::failed(format!("the MCP server stopped: {e}")))?;
    if engine::lock_left_behind() {
        return Err(Failure::failed(
            "the MCP server ended because it could not remove a queue lock it took, which would have held off every writer while it ran; run `mosaic-queue unlock` (the lock is dead now), then start the server again",
        ));
    }
    Ok(())
}
