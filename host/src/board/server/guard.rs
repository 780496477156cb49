//! What a request must be before the board answers it: GET or HEAD (nothing on the board
//! changes anything), a Host header naming the address the board listens on (a page of
//! another site that a DNS name made point here is refused), a bounded target, and no body.

use std::net::SocketAddr;

use hyper::{Method, StatusCode, header};

/// The longest request target answered.
pub const MAX_TARGET: usize = 2048;

/// A refusal: the status and its one line.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub line: &'static str,
}

/// The Host values that name the listening address: its IP and port as written, and
/// `localhost` with the port (what a browser sends for `http://localhost:PORT/`).
pub fn hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let ip = match addr {
        SocketAddr::V4(a) => a.ip().to_string(),
        SocketAddr::V6(a) => format!("[{}]", a.ip()),
    };
    let mut out = vec![format!("{ip}:{port}"), format!("localhost:{port}")];
    if port == 80 {
        out.push(ip);
        out.push(String::from("localhost"));
    }
    out
}

/// Checks a request's method, Host, target and body headers.
pub fn check<B>(req: &hyper::Request<B>, hosts: &[String]) -> Result<(), Refusal> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Err(Refusal {
            status: StatusCode::METHOD_NOT_ALLOWED,
            line: "the board is read-only: only GET and HEAD are answered; change the queue with the mosaic-queue CLI",
        });
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    if !host.is_some_and(|h| hosts.contains(&h)) {
        return Err(Refusal {
            status: StatusCode::MISDIRECTED_REQUEST,
            line: "the Host header does not name this board's address; open the address the board printed (through ssh -L, keep the same port on both ends)",
        });
    }
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > MAX_TARGET {
        return Err(Refusal {
            status: StatusCode::URI_TOO_LONG,
            line: "the request target is longer than 2048 bytes",
        });
    }
    let has_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if has_body {
        return Err(Refusal {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            line: "the board takes no request body",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(method: Method, host: Option<&str>, target: &str) -> hyper::Request<()> {
        let mut b = hyper::Request::builder().method(method).uri(target);
        if let Some(h) = host {
            b = b.header(header::HOST, h);
        }
        b.body(()).unwrap()
    }

    #[test]
    fn only_reads_of_this_address_pass() {
        let hosts = hosts("127.0.0.1:4321".parse().unwrap());
        assert_eq!(hosts, vec!["127.0.0.1:4321", "localhost:4321"]);
        assert!(check(&req(Method::GET, Some("127.0.0.1:4321"), "/"), &hosts).is_ok());
        assert!(check(&req(Method::HEAD, Some("LOCALHOST:4321"), "/"), &hosts).is_ok());
        let status = |r: hyper::Request<()>| check(&r, &hosts).unwrap_err().status;
        assert_eq!(status(req(Method::POST, Some("127.0.0.1:4321"), "/")), 405);
        assert_eq!(
            status(req(Method::DELETE, Some("127.0.0.1:4321"), "/")),
            405
        );
        for host in [
            None,
            Some("evil.example:4321"),
            Some("127.0.0.1:4322"),
            Some("127.0.0.1"),
        ] {
            assert_eq!(status(req(Method::GET, host, "/")), 421, "{host:?}");
        }
        let long = format!("/{}", "a".repeat(MAX_TARGET));
        assert_eq!(status(req(Method::GET, Some("localhost:4321"), &long)), 414);
        let mut with_body = req(Method::GET, Some("localhost:4321"), "/");
        with_body
            .headers_mut()
            .insert(header::CONTENT_LENGTH, "5".parse().unwrap());
        assert_eq!(status(with_body), 413);
        let v6 = super::hosts("[::1]:80".parse().unwrap());
        assert_eq!(v6, vec!["[::1]:80", "localhost:80", "[::1]", "localhost"]);
    }
}
