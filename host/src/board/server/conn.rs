//! The accept loop and each connection: HTTP/1.1 through hyper, at most `MAX_CONNECTIONS` at
//! once (one more is told so and closed), request heads bounded in bytes, and a connection
//! that sends nothing for `IDLE` closed, so idle connections cannot keep a new one out.
//! Pages are built on the blocking pool; the event stream is the one answer that stays open.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::events::Hub;
use super::guard::{self, Refusal};
use super::routes::{self, Answer};
use crate::engine::board::Source;

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 128;
/// Bytes a request's head may take (hyper's smallest buffer is 8 KiB).
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a connection may send nothing before its next request head.
pub const IDLE: Duration = Duration::from_secs(10);
/// The largest page answered: every page is bounded by construction well below it.
pub const MAX_ANSWER: usize = 8 * 1024 * 1024;

type Body = BoxBody<Bytes, Infallible>;

/// What every connection shares.
pub struct Shared {
    pub source: Arc<Source>,
    pub hub: Hub,
    pub hosts: Vec<String>,
    pub slots: Arc<Semaphore>,
    /// Cancelled when the board stops.
    pub stop: CancellationToken,
}

/// Accepts until `shared.stop` is cancelled.
pub async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = tokio::select! {
            () = shared.stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors or a connection reset before it was taken: the next
                // accept may succeed; a short pause keeps a persistent error from spinning.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        match Arc::clone(&shared.slots).try_acquire_owned() {
            Ok(slot) => {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    serve(stream, &shared).await;
                    drop(slot);
                });
            }
            Err(_) => {
                tokio::spawn(busy(stream));
            }
        }
    }
}

/// One connection, closed gracefully when the board stops.
async fn serve(stream: TcpStream, shared: &Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let svc = {
        let shared = Arc::clone(shared);
        service_fn(move |req| {
            let shared = Arc::clone(&shared);
            async move { Ok::<_, Infallible>(respond(req, &shared).await) }
        })
    };
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(IDLE)
        .max_buf_size(MAX_HEAD)
        .max_headers(64);
    let conn = builder.serve_connection(TokioIo::new(stream), svc);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        () = shared.stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(Duration::from_secs(1), conn).await;
        }
    }
}

/// A connection past the limit: one 503 and closed.
async fn busy(mut stream: TcpStream) {
    use tokio::io::AsyncWriteExt;
    let text = "the board is serving its most connections; close some pages and reload\n";
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(answer.as_bytes())).await;
}

async fn respond(req: Request<Incoming>, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(refusal) = guard::check(&req, &shared.hosts) {
        return refused(&refusal);
    }
    let head = req.method() == Method::HEAD;
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or("").to_owned();
    if path == "/events" {
        return events(shared, head);
    }
    let source = Arc::clone(&shared.source);
    let answer = tokio::task::spawn_blocking(move || routes::answer(&source, &path, &query))
        .await
        .unwrap_or_else(|_| Answer {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            kind: "text/plain; charset=utf-8",
            body: b"the page could not be built\n".to_vec(),
        });
    whole(answer, head)
}

/// Headers every answer carries: nothing is cached, sniffed, framed or sent elsewhere, and
/// a page runs only the board's own script.
fn base(status: StatusCode, kind: &str) -> hyper::http::response::Builder {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, kind)
        .header(header::CACHE_CONTROL, "no-store")
        .header("x-content-type-options", "nosniff")
        .header("x-frame-options", "DENY")
        .header("referrer-policy", "no-referrer")
        .header(
            "content-security-policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        )
}

fn whole(answer: Answer, head: bool) -> Response<Body> {
    let (status, kind, body) = if answer.body.len() > MAX_ANSWER {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            b"this page would pass the board's 8 MiB limit; narrow it (a lane's pages, the timeline's filters)\n".to_vec(),
        )
    } else {
        (answer.status, answer.kind, answer.body)
    };
    let length = body.len();
    let body = if head { Vec::new() } else { body };
    base(status, kind)
        .header(header::CONTENT_LENGTH, length)
        .body(Full::new(Bytes::from(body)).boxed())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

fn refused(r: &Refusal) -> Response<Body> {
    let mut text = String::from(r.line);
    text.push('\n');
    let mut builder = base(r.status, "text/plain; charset=utf-8")
        .header(header::CONTENT_LENGTH, text.len())
        .header(header::CONNECTION, "close");
    if r.status == StatusCode::METHOD_NOT_ALLOWED {
        builder = builder.header(header::ALLOW, "GET, HEAD");
    }
    builder
        .body(Full::new(Bytes::from(text)).boxed())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

fn events(shared: &Arc<Shared>, head: bool) -> Response<Body> {
    let builder = base(StatusCode::OK, "text/event-stream; charset=utf-8");
    let body = if head {
        Full::new(Bytes::new()).boxed()
    } else {
        shared.hub.open().boxed()
    };
    builder
        .body(body)
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}
