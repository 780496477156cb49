//! The board as the tests meet it: `mosaic-queue board --listen 127.0.0.1:0` run in a
//! checkout, its first line read for the address, and a plain HTTP/1.1 client over a TCP
//! socket that sends exactly the bytes a test writes and reads the answer whole.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running board; dropping it ends the process (SIGKILL if it is still running).
pub struct Board {
    child: Option<Child>,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The whole first line: `board: http://127.0.0.1:PORT/`.
    pub first_line: String,
}

impl Board {
    /// Starts the board in `dir` with `env` on a cleared environment, on a free port.
    pub fn start(dir: &Path, env: &[(&str, &str)]) -> Board {
        let mut child = crate::command(dir, &["board", "--listen", "127.0.0.1:0"], env)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut first_line = String::new();
        BufReader::new(stdout)
            .read_line(&mut first_line)
            .expect("the board prints its first line");
        let first_line = first_line.trim_end().to_owned();
        let addr = first_line
            .strip_prefix("board: http://")
            .and_then(|a| a.strip_suffix('/'))
            .unwrap_or_else(|| {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("the first line is {first_line:?}; stderr: {err}")
            })
            .to_owned();
        Board {
            child: Some(child),
            addr,
            first_line,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A connection to the board.
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.addr).expect("the board accepts");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    }

    /// Sends `raw` (a whole request, head and body) on a new connection and reads the answer
    /// until the board closes it.
    pub fn raw(&self, raw: &[u8]) -> Answer {
        let mut s = self.connect();
        s.write_all(raw).expect("the request is sent");
        read_answer(&mut s)
    }

    /// `GET path` with the right Host, `Connection: close`.
    pub fn get(&self, path: &str) -> Answer {
        self.raw(
            format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.addr
            )
            .as_bytes(),
        )
    }

    /// `HEAD path`: the head alone (the answer to HEAD has no body, whatever its length says).
    pub fn head(&self, path: &str) -> Answer {
        let mut s = self.connect();
        s.write_all(
            format!(
                "HEAD {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.addr
            )
            .as_bytes(),
        )
        .expect("the request is sent");
        read_head(&mut BufReader::new(&mut s))
    }

    /// Sends `signal` and waits for the process to end (at most 30 s, then the test fails).
    pub fn stop(mut self, signal: i32) -> (ExitStatus, String) {
        let mut child = self.child.take().expect("running");
        // SAFETY: kill(2) on the child's own pid, which has not been reaped.
        unsafe { libc::kill(child.id() as i32, signal) };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                return (status, err);
            }
            assert!(
                Instant::now() < deadline,
                "the board did not end on signal {signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// An answer: status, headers (names lowercased) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("the board answers UTF-8")
    }
}

/// Reads one answer: the head, then the body by its Content-Length, or to the end.
pub fn read_answer(s: &mut TcpStream) -> Answer {
    let mut reader = BufReader::new(s);
    let mut answer = read_head(&mut reader);
    let length = answer
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok());
    match length {
        Some(n) => {
            answer.body.resize(n, 0);
            reader.read_exact(&mut answer.body).expect("the whole body");
        }
        None => {
            let _ = reader.read_to_end(&mut answer.body);
        }
    }
    answer
}

/// Reads an answer's status line and headers; its body left empty.
fn read_head(reader: &mut impl BufRead) -> Answer {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("a status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not a status line: {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').expect("a header");
        headers.push((k.to_ascii_lowercase(), v.trim().to_owned()));
    }
    Answer {
        status,
        headers,
        body: Vec::new(),
    }
}
