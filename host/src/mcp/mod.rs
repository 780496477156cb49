//! `mosaic-queue mcp --seat SEAT`: the queue as an MCP server on stdio for one seat, fixed
//! for the server's life. Each tool call runs the CLI verb it names, in this process, through
//! the CLI's own parser and dispatcher (`run`), so there is no second write path; between
//! calls the server holds no lock and no queue state. docs/mcp.md has the tools and bounds.

mod argv;
pub mod bound;
mod json_text;
pub mod run;
mod running;
mod server;
pub mod tools;
pub mod transport;

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use self::running::Running;
use crate::reply::{Failure, Replied};
use crate::store::{lock, session};

/// How long the server, once it stops reading, lets a verb still running finish (a lock wait
/// is at most 30 s) before the process ends.
const FINISH: Duration = Duration::from_secs(35);

/// `mosaic-queue mcp [--seat SEAT]`: refuses a missing or invalid seat, and a working
/// directory outside a checkout, before serving stdin and stdout.
pub fn serve_stdio(seat: Option<String>) -> Replied {
    let seat = seat_of(seat)?;
    session::locate()?;
    serve(&seat, tokio::io::stdin(), tokio::io::stdout())
}

/// The seat: `--seat`, else `$MOSAIC_AGENT_NAME`, checked as every verb checks a seat.
pub fn seat_of(seat: Option<String>) -> Result<String, Failure> {
    crate::actor::seat_or(
        seat,
        "refused: mcp needs a seat: pass --seat SEAT or set MOSAIC_AGENT_NAME",
    )
}

/// Serves MCP for `seat` on `input` and `output` until input ends (exit 0), on a runtime of
/// one thread; the verbs run on its blocking pool. What the OpenSSH gate runs too. A call that
/// leaves a lock of this process behind ends the server once it has answered (exit 1).
pub fn serve<R, W>(seat: &str, input: R, output: W) -> Replied
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
        let transport = transport::Lines::new(input, output, closing.clone());
        let handler = server::Server::new(seat, closing.clone(), running.clone());
        match rmcp::serve_server(handler, transport).await {
            Ok(running) => running.waiting().await.map(drop).map_err(|e| e.to_string()),
            // Input that ended before the handshake finished is a client gone: nothing to do.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    // Waits end at once; a verb still writing finishes. The pool's thread blocked reading
    // stdin (when the server ends with its input open) is left to the process's exit.
    closing.cancel();
    running.wait_idle(FINISH);
    runtime.shutdown_background();
    served.map_err(|e| Failure::failed(format!("the MCP server stopped: {e}")))?;
    if lock::left_behind() {
        return Err(Failure::failed(
            "the MCP server ended because it could not remove a queue lock it took, which would have held off every writer while it ran; run `mosaic-queue unlock` (the lock is dead now), then start the server again",
        ));
    }
    Ok(())
}
