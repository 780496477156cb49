//! The board's server: it checks the address (loopback only), reads the queue once, prints
//! `board: http://ADDR/` as its first line, and serves until Ctrl-C or SIGTERM, when it stops
//! accepting, ends every stream and connection, and returns (exit 0).

mod conn;
mod events;
pub mod guard;
pub mod listen;
mod routes;

use std::io::Write;
use std::sync::Arc;

use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

use crate::engine::board::Source;
use crate::reply::{Failure, Replied};

/// Threads that build pages at once (a page may replay the queue).
const PAGE_THREADS: usize = 2;

/// `board [--listen IP:PORT]` in the checkout around the working directory.
pub fn serve(listen: Option<&str>) -> Replied {
    let addr = listen::address(listen)?;
    let source = Arc::new(Source::open()?);
    // The watch is set before the read that gives the streams their first revision, so a
    // write landing between the two still wakes them.
    let changes = source.changes()?;
    let first = source.snapshot()?;
    let listener = listen::bind(addr)?;
    let bound = listener.local_addr().map_err(|e| {
        Failure::failed(format!("cannot read the address the board listens on: {e}"))
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(PAGE_THREADS)
        .build()
        .map_err(|e| Failure::failed(format!("cannot start the board's runtime: {e}")))?;
    let stop_fd = Arc::new(
        rustix::event::eventfd(
            0,
            rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK,
        )
        .map_err(|e| Failure::failed(format!("cannot start the board: {e}")))?,
    );
    let (publish, seen) = watch::channel((first.revision, first.durable));
    let (claims_now, claims) = watch::channel(crate::board::page::events::claims_key(&first));
    let turns = first.turns;
    drop(first);
    let follower = events::follow(
        Arc::clone(&source),
        changes,
        publish,
        claims_now,
        turns,
        Arc::clone(&stop_fd),
    )
    .map_err(|e| Failure::failed(format!("cannot start the board's witness thread: {e}")))?;
    // Ctrl-C and SIGTERM are caught before the first line: whoever reads it may signal at once.
    let signalled = {
        let _runtime = runtime.enter();
        signals()?
    };
    first_line(&listen::url(bound))?;
    let stop = CancellationToken::new();
    let shared = Arc::new(conn::Shared {
        source,
        hub: events::Hub::new(seen, claims, stop.clone()),
        hosts: guard::hosts(bound),
        slots: Arc::new(Semaphore::new(conn::MAX_CONNECTIONS)),
        stop: stop.clone(),
    });
    let outcome = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| Failure::failed(format!("cannot listen on {bound}: {e}")))?;
        let accepting = tokio::spawn(conn::accept(listener, Arc::clone(&shared)));
        signalled.await;
        stop.cancel();
        let _ = accepting.await;
        // Connections close gracefully, each within a second.
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            shared.slots.acquire_many(conn::MAX_CONNECTIONS as u32),
        )
        .await;
        Ok::<(), Failure>(())
    });
    // The witness thread wakes on the eventfd and returns.
    let _ = rustix::io::write(&*stop_fd, &1u64.to_ne_bytes());
    let _ = follower.join();
    runtime.shutdown_background();
    outcome
}

/// Resolves at the first Ctrl-C (SIGINT) or SIGTERM.
fn signals() -> Result<impl std::future::Future<Output = ()>, Failure> {
    use tokio::signal::unix::{SignalKind, signal};
    let failed =
        |e: std::io::Error| Failure::failed(format!("cannot watch for Ctrl-C and SIGTERM: {e}"));
    let mut int = signal(SignalKind::interrupt()).map_err(failed)?;
    let mut term = signal(SignalKind::terminate()).map_err(failed)?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    })
}

/// `board: URL` on stdout, flushed at once: the line a person (or a test) reads first.
fn first_line(url: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "board: {url}")
        .and_then(|()| out.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))
}

/// One line on stderr; a stderr that cannot be written is let be.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
