//! The MCP server's renewals: while it runs, it has the engine renew its seat's claims
//! (`engine::renew`) every third of the shortest lease among them, so a live session never
//! loses a claim and a crashed one (whose timer died with it) loses each after its lease.

use tokio_util::sync::CancellationToken;

use crate::engine::renew::{self, IDLE};

/// Renews `seat`'s claims until `closing` fires.
pub async fn run(seat: String, closing: CancellationToken) {
    loop {
        let who = seat.clone();
        let next = tokio::task::spawn_blocking(move || renew::here(&who))
            .await
            .unwrap_or(IDLE);
        tokio::select! {
            () = tokio::time::sleep(next) => {}
            () = closing.cancelled() => return,
        }
    }
}
