//! The server's output: one writer task owns stdout and writes each line whole, in the order
//! it was queued, so an error the transport answers itself goes out before the answer to a
//! later message, and lines never interleave. A client that reads none of its answers stops
//! the reading once `MAX_UNWRITTEN` lines wait, so memory stays bounded.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, mpsc, oneshot};

/// The most lines waiting to be written before reading stops until the client reads.
const MAX_UNWRITTEN: usize = 256;

/// A line to write, and who waits to know how its write went.
type Outgoing = (Vec<u8>, Option<oneshot::Sender<io::Result<()>>>);

/// The output side: the writer task's queue, and how many lines wait in it.
pub struct Output {
    queue: mpsc::UnboundedSender<Outgoing>,
    unwritten: Arc<AtomicUsize>,
    written: Arc<Notify>,
}

impl Output {
    /// Starts the writer task, which owns `write`, on the current runtime.
    pub fn start<W: AsyncWrite + Unpin + Send + 'static>(mut write: W) -> Output {
        let (queue, mut lines) = mpsc::unbounded_channel::<Outgoing>();
        let unwritten = Arc::new(AtomicUsize::new(0));
        let written = Arc::new(Notify::new());
        let (count, wake) = (unwritten.clone(), written.clone());
        tokio::spawn(async move {
            while let Some((mut line, done)) = lines.recv().await {
                line.push(b'\n');
                let wrote = match write.write_all(&line).await {
                    Ok(()) => write.flush().await,
                    Err(e) => Err(e),
                };
                count.fetch_sub(1, Ordering::SeqCst);
                wake.notify_waiters();
                if let Some(done) = done {
                    // A sender that stopped waiting needs no word.
                    let _ = done.send(wrote);
                }
            }
        });
        Output {
            queue,
            unwritten,
            written,
        }
    }

    /// Queues `line` behind every line decided before it.
    pub fn push(&self, line: Vec<u8>, done: Option<oneshot::Sender<io::Result<()>>>) {
        self.unwritten.fetch_add(1, Ordering::SeqCst);
        if let Err(mpsc::error::SendError((_, done))) = self.queue.send((line, done)) {
            self.unwritten.fetch_sub(1, Ordering::SeqCst);
            if let Some(done) = done {
                let _ = done.send(Err(io::ErrorKind::BrokenPipe.into()));
            }
        }
    }

    /// Waits until fewer than `MAX_UNWRITTEN` lines wait to be written.
    pub async fn room(&self) {
        loop {
            let written = self.written.notified();
            if self.unwritten.load(Ordering::SeqCst) < MAX_UNWRITTEN {
                return;
            }
            written.await;
        }
    }
}
