//! The board's HTTP face, driven by a plain client over TCP against the real binary in a
//! scratch checkout: the first line, the pages, the Host check, only GET and HEAD, bounded
//! requests, idle connections that cannot keep a new one out, the event stream after a
//! durable write, loopback only, and Ctrl-C and SIGTERM ending it with exit 0.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use support::board::{Board, read_answer};
use support::{Repo, ok, run_in};

fn board(name: &str) -> (Repo, Board) {
    let repo = Repo::new(name);
    let board = Board::start(&repo.root, &[]);
    (repo, board)
}

#[test]
fn the_first_line_names_the_address_and_each_page_answers() {
    let (_repo, board) = board("board-pages");
    let port: u16 = board
        .addr
        .strip_prefix("127.0.0.1:")
        .unwrap()
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    assert_eq!(board.first_line, format!("board: http://127.0.0.1:{port}/"));
    let home = board.get("/");
    assert_eq!(home.status, 200);
    assert_eq!(
        home.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(home.header("cache-control"), Some("no-store"));
    assert_eq!(
        home.header("content-security-policy"),
        Some(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        )
    );
    let text = home.text();
    // Genesis's three rows: 1 and 2 queued, 3 parked, each a card.
    for id in 1..=3 {
        assert!(
            text.contains(&format!("id=\"row-{id}\" data-row=\"{id}\"")),
            "{text}"
        );
    }
    assert!(text.contains("<main id=\"main\" data-revision=\"1\" data-durable=\"true\">"));
    assert!(text.contains("<p class=\"state\">rev 1 · read-only"));
    for (path, status, fragment) in [
        ("/graph", 200, "<svg xmlns=\"http://www.w3.org/2000/svg\""),
        ("/graph?row=2", 200, "#2 Render</a> waits on 0 rows"),
        ("/seats", 200, "<a href=\"/seat/darkwing\">darkwing</a>"),
        ("/seat/jason", 200, "genesis 3 rows on main"),
        ("/timeline", 200, "1 entries, newest first; page 1 of 1"),
        ("/timeline?verb=note", 200, "0 entries, newest first"),
        (
            "/row/1",
            200,
            "<h1><span class=\"badge st-queued\">queued</span> #1 Parser</h1>",
        ),
        ("/lane/parked", 200, "#3</a>"),
        (
            "/row/99",
            404,
            "The queue has no row 99, and no cut archived one",
        ),
        ("/row/x", 400, "A row&#39;s page is /row/ID"),
        ("/timeline?row=x", 400, "row must be a whole number."),
        ("/seat/nobody", 404, "No such seat"),
        (
            "/nothing",
            404,
            "The board has /, /graph, /seats, /timeline and /row/ID.",
        ),
        ("/assets/live.js", 200, "new EventSource(\"/events\")"),
        ("/assets/board.css", 200, "--in-progress: #2563eb"),
    ] {
        let a = board.get(path);
        assert_eq!(a.status, status, "{path}");
        assert!(a.text().contains(fragment), "{path}: {}", a.text());
    }
}

#[test]
fn only_the_listening_address_is_answered() {
    let (_repo, board) = board("board-host");
    let port = board.addr.rsplit(':').next().unwrap().to_owned();
    for host in [
        format!("Host: evil.example:{port}\r\n"),
        format!("Host: 127.0.0.1:{}\r\n", port.parse::<u32>().unwrap() + 1),
        String::from("Host: 127.0.0.1\r\n"),
        String::from("Host:\r\n"),
    ] {
        let a = board.raw(format!("GET / HTTP/1.1\r\n{host}Connection: close\r\n\r\n").as_bytes());
        assert_eq!(a.status, 421, "{host:?}");
        assert_eq!(
            a.text(),
            "the Host header does not name this board's address; open the address the board printed (through ssh -L, keep the same port on both ends)\n"
        );
    }
    let local = board.raw(
        format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    assert_eq!(local.status, 200);
}

/// RFC 9112 section 3.2: a request with no Host line (HTTP/1.1), more than one, or one
/// that is not a host and port is a bad request (400), whatever it names.
#[test]
fn a_request_without_exactly_one_valid_host_line_is_a_bad_request() {
    let (_repo, board) = board("board-host-lines");
    let addr = board.addr.clone();
    for (head, line) in [
        (
            format!("Host: {addr}\r\nHost: {addr}\r\n"),
            "the request has more than one Host line; send one, naming the address the board printed",
        ),
        (
            format!("Host: {addr}\r\nHost: evil.example\r\n"),
            "the request has more than one Host line; send one, naming the address the board printed",
        ),
        (
            format!("Host: evil.example\r\nHost: {addr}\r\n"),
            "the request has more than one Host line; send one, naming the address the board printed",
        ),
        (
            String::new(),
            "the request has no Host line; send one, naming the address the board printed",
        ),
        (
            format!("Host: user@{addr}\r\n"),
            "the Host line is not a host and port; send the address the board printed",
        ),
        (
            format!("Host: {addr}/row/1\r\n"),
            "the Host line is not a host and port; send the address the board printed",
        ),
        (
            format!("Host: 127.0.0.1 :{}\r\n", addr.rsplit(':').next().unwrap()),
            "the Host line is not a host and port; send the address the board printed",
        ),
    ] {
        let a = board.raw(format!("GET / HTTP/1.1\r\n{head}Connection: close\r\n\r\n").as_bytes());
        assert_eq!(a.status, 400, "{head:?}");
        assert_eq!(a.text(), format!("{line}\n"), "{head:?}");
        assert_eq!(a.header("connection"), Some("close"), "{head:?}");
    }
    // HTTP/1.0 may leave Host out; the board then cannot tell which site was asked for.
    let old = board.raw(b"GET / HTTP/1.0\r\n\r\n");
    assert_eq!(old.status, 421);
    let one = board.raw(format!("GET / HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes());
    assert_eq!(one.status, 200);
}

/// RFC 9112 section 3.2.2: an absolute-form target's authority is the site asked for, in
/// place of the Host line. Another site is refused as a Host naming it is (421); the board's
/// own address is served as the target's path.
#[test]
fn an_absolute_target_is_judged_by_its_authority() {
    let (_repo, board) = board("board-absolute");
    let addr = board.addr.clone();
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let misdirected = "the Host header does not name this board's address; open the address the board printed (through ssh -L, keep the same port on both ends)\n";
    for (target, host) in [
        (String::from("http://evil.example/"), addr.clone()),
        (format!("http://evil.example:{port}/row/1"), addr.clone()),
        (format!("http://127.0.0.2:{port}/"), addr.clone()),
        (format!("https://{addr}/"), addr.clone()),
    ] {
        let a = board.raw(
            format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(a.status, 421, "{target}");
        assert_eq!(a.text(), misdirected, "{target}");
    }
    let plain = board.get("/row/1");
    assert_eq!(plain.status, 200);
    for (target, host) in [
        (format!("http://{addr}/row/1"), addr.clone()),
        (format!("HTTP://LOCALHOST:{port}/row/1"), addr.clone()),
        // The target's authority replaces the Host line, which names another site here.
        (format!("http://{addr}/row/1"), String::from("evil.example")),
    ] {
        let a = board.raw(
            format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(a.status, 200, "{target} with Host {host}");
        assert_eq!(a.body, plain.body, "{target} with Host {host}");
    }
    let userinfo = board.raw(
        format!("GET http://user@{addr}/ HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(userinfo.status, 400);
    assert_eq!(
        userinfo.text(),
        "the request target names user information; ask for the path alone (GET /row/1)\n"
    );
}

#[test]
fn nothing_but_get_and_head_is_answered_and_nothing_changes() {
    let (repo, board) = board("board-methods");
    let before = repo.snapshot();
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let a = board.raw(
            format!(
                "{method} /row/1 HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                board.addr
            )
            .as_bytes(),
        );
        assert_eq!(a.status, 405, "{method}");
        assert_eq!(a.header("allow"), Some("GET, HEAD"));
        assert_eq!(
            a.text(),
            "the board is read-only: only GET and HEAD are answered; change the queue with the mosaic-queue CLI\n"
        );
    }
    repo.assert_unchanged(&before);
    let get = board.get("/row/1");
    let head = board.head("/row/1");
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length"),
        Some(get.body.len().to_string().as_str())
    );
    assert!(head.body.is_empty());
}

#[test]
fn requests_are_bounded_in_size() {
    let (_repo, board) = board("board-sizes");
    let long = format!("/{}", "a".repeat(3000));
    let a = board.raw(
        format!(
            "GET {long} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            board.addr
        )
        .as_bytes(),
    );
    assert_eq!(a.status, 414);
    let body = board.raw(
        format!(
            "GET / HTTP/1.1\r\nHost: {}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
            board.addr
        )
        .as_bytes(),
    );
    assert_eq!(body.status, 413);
    assert_eq!(body.text(), "the board takes no request body\n");
    // A head past 16 KiB: hyper refuses it before any handler runs.
    let big = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nX-Filler: {}\r\nConnection: close\r\n\r\n",
        board.addr,
        "x".repeat(20 * 1024)
    );
    assert_eq!(board.raw(big.as_bytes()).status, 431);
}

#[test]
fn sixty_four_idle_connections_do_not_keep_a_new_one_out() {
    let (_repo, board) = board("board-idle");
    // 32 that never send a byte, and 32 that asked once and keep their connection open.
    let mut idle: Vec<std::net::TcpStream> = (0..32).map(|_| board.connect()).collect();
    for _ in 0..32 {
        let mut s = board.connect();
        s.write_all(format!("GET /seats HTTP/1.1\r\nHost: {}\r\n\r\n", board.addr).as_bytes())
            .unwrap();
        assert_eq!(read_answer(&mut s).status, 200);
        idle.push(s);
    }
    let fresh = board.get("/");
    assert_eq!(fresh.status, 200);
    assert!(fresh.text().contains("id=\"row-1\""));
    drop(idle);
}

#[test]
fn a_durable_write_reaches_an_open_event_stream() {
    let (repo, board) = board("board-events");
    let mut s = board.connect();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", board.addr).as_bytes())
        .unwrap();
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    while head != "\r\n" {
        head.clear();
        reader.read_line(&mut head).unwrap();
        if head.to_ascii_lowercase().starts_with("content-type:") {
            assert_eq!(
                head.trim_end(),
                "content-type: text/event-stream; charset=utf-8"
            );
        }
    }
    // Chunked: each chunk's size line, then its bytes. The first holds the retry line and
    // the revision now.
    let first = chunk(&mut reader);
    assert_eq!(
        first,
        "retry: 1000\n\nevent: revision\ndata: {\"revision\":1,\"durable\":true}\n\n"
    );
    support::watch::until_watching(board.pid(), &repo.root.join(".git"));
    ok(
        &repo,
        &["note", "1", "seen live"],
        "jason-1-note-1",
        "jason",
        "ok jason-1-note-1 rev 2 note 1",
    );
    assert_eq!(
        chunk(&mut reader),
        "event: revision\ndata: {\"revision\":2,\"durable\":true}\n\n"
    );
}

/// One chunk of a chunked body, as text.
fn chunk(reader: &mut BufReader<std::net::TcpStream>) -> String {
    use std::io::Read;
    let mut size = String::new();
    reader.read_line(&mut size).unwrap();
    let n = usize::from_str_radix(size.trim_end(), 16).unwrap();
    let mut data = vec![0; n + 2];
    reader.read_exact(&mut data).unwrap();
    data.truncate(n);
    String::from_utf8(data).unwrap()
}

#[test]
fn any_address_but_loopback_is_refused_with_the_way_in() {
    let repo = Repo::new("board-loopback");
    let before = repo.snapshot();
    for addr in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8080"] {
        let out = repo.run(&["board", "--listen", addr], &[]);
        let line = out.fails(2);
        assert_eq!(
            line,
            format!(
                "mosaic-queue: --listen {addr} is not a loopback address; the board listens on 127.0.0.1 or [::1] only: people elsewhere reach it with ssh -L PORT:127.0.0.1:PORT queue-host"
            )
        );
        assert_eq!(out.stdout, "");
    }
    let out = repo.run(&["board", "--listen", "localhost:80"], &[]);
    assert!(
        out.fails(2)
            .contains("is not an address; give IP:PORT on loopback")
    );
    repo.assert_unchanged(&before);
    // Outside a checkout: the reads' own refusal, before anything listens.
    let elsewhere = run_in(
        std::path::Path::new("/"),
        &["board", "--listen", "127.0.0.1:0"],
        &[],
    );
    assert_ne!(elsewhere.code, 0);
    assert_eq!(elsewhere.stdout, "");
}

#[test]
fn ctrl_c_and_sigterm_end_it_cleanly() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let (_repo, board) = board("board-signal");
        // An open stream and an idle connection do not hold it up.
        let mut s = board.connect();
        s.write_all(format!("GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", board.addr).as_bytes())
            .unwrap();
        let _idle = board.connect();
        std::thread::sleep(Duration::from_millis(50));
        let (status, stderr) = board.stop(signal);
        assert_eq!(status.code(), Some(0), "signal {signal}: {stderr}");
        assert_eq!(stderr, "");
    }
}
