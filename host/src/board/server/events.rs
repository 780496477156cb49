//! `/events`: each durable write pushed to every open page, and each leased claim turning
//! quiet or expired. One thread blocks on the witness watch that `wait` uses (inotify, no
//! polling) and publishes the revision a read sees after each wake; each stream sends it as a
//! `revision` event. The same wait ends at the moment the earliest claim turns (the snapshot
//! knows it: one timer for all of them), and the thread then publishes the claims' states,
//! which each stream sends as a `claims` event. At most `MAX_STREAMS` streams are open: a new
//! one ends the oldest, whose page reconnects when it is still open.

use std::collections::VecDeque;
use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use hyper::body::{Bytes, Frame};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::note as warn;
use crate::board::page::events;
use crate::engine::board::{self as source, Changes, Source};

/// Open event streams at most.
pub const MAX_STREAMS: usize = 32;

/// The revision as a read sees it, and whether it is durable.
pub type Seen = (u64, bool);

/// The open streams, the latest revision and the claims' states they follow.
pub struct Hub {
    seen: watch::Receiver<Seen>,
    /// `events::claims_key` of the latest snapshot the witness thread read.
    claims: watch::Receiver<String>,
    streams: Mutex<VecDeque<CancellationToken>>,
    /// Cancelled when the board stops: every stream ends.
    stop: CancellationToken,
}

impl Hub {
    pub fn new(
        seen: watch::Receiver<Seen>,
        claims: watch::Receiver<String>,
        stop: CancellationToken,
    ) -> Hub {
        Hub {
            seen,
            claims,
            streams: Mutex::new(VecDeque::new()),
            stop,
        }
    }

    /// A new stream's body: the retry line, the current revision and (where there are leased
    /// claims) their states at once, then one event per change until the client leaves, a
    /// newer stream displaces it, or the board stops.
    pub fn open(&self) -> EventBody {
        let token = self.stop.child_token();
        if let Ok(mut streams) = self.streams.lock() {
            streams.retain(|t| !t.is_cancelled());
            while streams.len() >= MAX_STREAMS {
                if let Some(oldest) = streams.pop_front() {
                    oldest.cancel();
                }
            }
            streams.push_back(token.clone());
        }
        let (tx, rx) = mpsc::channel(4);
        let mut seen = self.seen.clone();
        let mut claims = self.claims.clone();
        tokio::spawn(async move {
            let _ended = token.clone().drop_guard();
            let (rev, durable) = *seen.borrow_and_update();
            let mut first = format!("{}{}", events::OPENING, events::revision(rev, durable));
            let key = claims.borrow_and_update().clone();
            if !key.is_empty() {
                first.push_str(&events::claims(&key));
            }
            if tx.send(Bytes::from(first)).await.is_err() {
                return;
            }
            loop {
                tokio::select! {
                    changed = seen.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        let (rev, durable) = *seen.borrow_and_update();
                        if tx.send(Bytes::from(events::revision(rev, durable))).await.is_err() {
                            return;
                        }
                    }
                    changed = claims.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        let key = claims.borrow_and_update().clone();
                        if tx.send(Bytes::from(events::claims(&key))).await.is_err() {
                            return;
                        }
                    }
                    () = token.cancelled() => return,
                    () = tx.closed() => return,
                }
            }
        });
        EventBody { rx }
    }
}

/// A stream's body: the chunks its task sends, until the task ends.
pub struct EventBody {
    rx: mpsc::Receiver<Bytes>,
}

impl hyper::body::Body for EventBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx.poll_recv(cx).map(|c| c.map(|b| Ok(Frame::data(b))))
    }
}

/// Starts the thread that follows the witness: after each wake it reads the revision the
/// witness vouches and publishes it. `changes` was set up before the first read, so no write is
/// missed. The wait also ends when the earliest leased claim turns (`turns`, from the snapshot
/// read last): the claims' states are then published as they stand. The thread ends when
/// `stop` becomes readable.
pub fn follow(
    source: Arc<Source>,
    mut changes: Changes,
    publish: watch::Sender<Seen>,
    claims: watch::Sender<String>,
    mut turns: Option<i64>,
    stop: Arc<OwnedFd>,
) -> io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(String::from("board-witness"))
        .spawn(move || {
            source::stoppable(stop, || {
                loop {
                    let wrote = match changes.wait(turns) {
                        Ok(wrote) => wrote,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => return,
                        Err(e) => {
                            warn(&format!(
                                "mosaic-queue: board: cannot wait on the witness ({e}); pages no longer update by themselves, reload them"
                            ));
                            return;
                        }
                    };
                    // Read as `wait` reads it, so a stream hears of a write as soon as `wait`
                    // would; the page it makes fetch itself builds the snapshot. A queue that
                    // cannot be read now is reported by the page that reads it.
                    if wrote && let Ok(seen) = source.revision() {
                        publish.send_replace(seen);
                    }
                    // The claims as they stand now, and when the next one turns. After a write
                    // the pages fetch themselves for the revision, so the new states are kept
                    // for new streams without an event; a turn with no write is an event.
                    turns = match source.snapshot() {
                        Ok(snap) => {
                            let key = events::claims_key(&snap);
                            claims.send_if_modified(|shown| {
                                let turned = *shown != key;
                                *shown = key;
                                turned && !wrote
                            });
                            snap.turns
                        }
                        Err(_) => None,
                    };
                }
            })
        })
}
