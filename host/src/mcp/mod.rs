//! `mosaic-queue mcp --seat SEAT`: the queue as an MCP server on stdio for one seat, fixed
//! for the server's life. Each tool call runs the CLI verb it names, in this process, through
//! the CLI's own parser and dispatcher (`run`), so there is no second write path; between
//! calls the server holds no lock and no queue state. docs/mcp.md has the tools and bounds.

mod argv;
pub mod bound;
mod json_text;
pub mod run;
mod server;
pub mod tools;
pub mod transport;

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::reply::{Failure, Replied};
use crate::store::session;

/// How long the server, its input closed, lets a verb still running finish (a lock wait is
/// at most 30 s) before the process ends.
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
    let seat = match seat {
        Some(s) => s,
        None => match std::env::var_os("MOSAIC_AGENT_NAME") {
            Some(v) if !v.is_empty() => v.into_string().map_err(|v| {
                Failure::refused(format!(
                    "refused: MOSAIC_AGENT_NAME {:?} is not a seat name; set it to your seat",
                    v.to_string_lossy()
                ))
            })?,
            _ => {
                return Err(Failure::refused(
                    "refused: mcp needs a seat: pass --seat SEAT or set MOSAIC_AGENT_NAME",
                ));
            }
        },
    };
    mosaic_queue_core::rules::check_seat(&seat)?;
    Ok(seat)
}

/// Serves MCP for `seat` on `input` and `output` until input ends (exit 0), on a runtime of
/// one thread; the verbs run on its blocking pool. What the OpenSSH gate runs too.
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
    let served = runtime.block_on(async {
        let transport = transport::Lines::new(input, output, closing.clone());
        let handler = server::Server::new(seat, closing.clone());
        match rmcp::serve_server(handler, transport).await {
            Ok(running) => running.waiting().await.map(drop).map_err(|e| e.to_string()),
            // Input that ended before the handshake finished is a client gone: nothing to do.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    closing.cancel();
    runtime.shutdown_timeout(FINISH);
    served.map_err(|e| Failure::failed(format!("the MCP server stopped: {e}")))
}
