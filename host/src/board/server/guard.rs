//! What a request must be before the board answers it: GET or HEAD (nothing on the board
//! changes anything), exactly one valid Host line, the site it asks for (an absolute target's
//! authority, else the Host line) the address the board listens on (a page of another site
//! that a DNS name made point here is refused), a bounded target, and no body.

use std::net::SocketAddr;

use hyper::{Method, StatusCode, Version, header};

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
    let site = site(req)?;
    if !site.is_some_and(|h| hosts.contains(&h)) {
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

/// The site a request asks for, lowercased: an absolute-form target's authority, which
/// replaces the Host line (RFC 9112 section 3.2.2), else the Host line's value; `None` when it
/// names none this board could be (an HTTP/1.0 request without Host, a scheme other than
/// `http`). A request with more than one Host line, an HTTP/1.1 request without one, or a
/// Host that is not a host and port is a bad request (section 3.2), whatever its target.
fn site<B>(req: &hyper::Request<B>) -> Result<Option<String>, Refusal> {
    let bad = |line| Refusal {
        status: StatusCode::BAD_REQUEST,
        line,
    };
    let mut lines = req.headers().get_all(header::HOST).iter();
    let host = lines.next();
    if lines.next().is_some() {
        return Err(bad(
            "the request has more than one Host line; send one, naming the address the board printed",
        ));
    }
    let host = match host {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .filter(|h| is_host_and_port(h))
                .ok_or_else(|| {
                    bad("the Host line is not a host and port; send the address the board printed")
                })?,
        ),
        None if req.version() >= Version::HTTP_11 => {
            return Err(bad(
                "the request has no Host line; send one, naming the address the board printed",
            ));
        }
        None => None,
    };
    if let Some(authority) = req.uri().authority() {
        if authority.as_str().contains('@') {
            return Err(bad(
                "the request target names user information; ask for the path alone (GET /row/1)",
            ));
        }
        if !req
            .uri()
            .scheme_str()
            .is_some_and(|s| s.eq_ignore_ascii_case("http"))
        {
            return Ok(None);
        }
        return Ok(Some(authority.as_str().to_ascii_lowercase()));
    }
    Ok(host.map(str::to_ascii_lowercase))
}

/// Whether `text` is a Host value as RFC 9110 section 7.2 writes it: `uri-host [ ":" port ]`,
/// the host an IP literal in brackets or a name of unreserved, percent-encoded and sub-delim
/// characters (an IPv4 address is one), the port digits. No user information, path or space.
fn is_host_and_port(text: &str) -> bool {
    let (host, port) = match text.rfind(':') {
        Some(at) if !text[at..].contains(']') => (&text[..at], &text[at + 1..]),
        _ => (text, ""),
    };
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !inner.is_empty()
            && inner
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.' | b'v' | b'V'));
    }
    let bytes = host.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
            {
                i += 2;
            }
            b if b.is_ascii_alphanumeric() => {}
            b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+'
            | b',' | b';' | b'=' => {}
            _ => return false,
        }
        i += 1;
    }
    true
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
            Some(""),
            Some("evil.example:4321"),
            Some("127.0.0.1:4322"),
            Some("127.0.0.1"),
        ] {
            assert_eq!(status(req(Method::GET, host, "/")), 421, "{host:?}");
        }
        for host in [
            None,
            Some("user@127.0.0.1:4321"),
            Some("127.0.0.1:43x1"),
            Some("a b"),
        ] {
            assert_eq!(status(req(Method::GET, host, "/")), 400, "{host:?}");
        }
        let mut twice = req(Method::GET, Some("127.0.0.1:4321"), "/");
        twice
            .headers_mut()
            .append(header::HOST, "127.0.0.1:4321".parse().unwrap());
        assert_eq!(status(twice), 400);
        // An absolute target names the site itself; the Host line is then not asked.
        let absolute = |target| req(Method::GET, Some("127.0.0.1:4321"), target);
        assert!(check(&absolute("http://LOCALHOST:4321/row/1"), &hosts).is_ok());
        assert!(
            check(
                &req(Method::GET, Some("evil.example"), "http://127.0.0.1:4321/"),
                &hosts
            )
            .is_ok()
        );
        assert_eq!(status(absolute("http://evil.example/")), 421);
        assert_eq!(status(absolute("https://127.0.0.1:4321/")), 421);
        assert_eq!(status(absolute("http://u@127.0.0.1:4321/")), 400);
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

    #[test]
    fn a_host_is_a_name_or_an_ip_literal_and_a_port() {
        for fine in [
            "127.0.0.1:7461",
            "[::1]:7461",
            "[::1]",
            "localhost",
            "a-b.c_d~e%41:1",
            "",
        ] {
            assert!(is_host_and_port(fine), "{fine:?}");
        }
        for bad in [
            "u@h:1",
            "h:1/x",
            "h :1",
            "h:1:2x",
            "[::1",
            "[]:1",
            "h%4:1",
            "h\u{e9}:1",
            "h:-1",
        ] {
            assert!(!is_host_and_port(bad), "{bad:?}");
        }
    }
}
