//! bench-board: what the board costs, in one run. At 1,000 and 10,000 rows: the board page's
//! server time (the first read after a write, and warm) and bytes against `list --json` of the
//! same queue as a process; the time from a durable write (the witness renamed into place, as
//! an inotify watch of this bench sees it) to the event on an open stream, against the same
//! write waking `wait --revision-after`; the server's peak memory after serving every page;
//! and the binary's size. Run: `cargo build --release -p mosaic-queue`, then
//! `cargo run --release -p mosaic-queue --example bench-board`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::fs::inotify::{self, ReadFlags, WatchFlags};
use support::bench::{Scratch, cleared, release_binary, run_ok};
use support::long::long_checkout;

const ROUNDS: usize = 15;
const WRITES: usize = 15;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The board started in `root` on a free port: the child and its address.
fn start(bin: &Path, root: &Path) -> (std::process::Child, String) {
    let mut cmd = cleared(std::process::Command::new(bin));
    let mut child = cmd
        .args(["board", "--listen", "127.0.0.1:0"])
        .current_dir(root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the board starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim_end()
        .strip_prefix("board: http://")
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    (child, addr)
}

/// GET `path`: the time to the whole answer and its body's size.
fn get(addr: &str, path: &str) -> (Duration, usize) {
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let a = support::board::read_answer(&mut s);
    assert_eq!(a.status, 200, "{path}");
    (t.elapsed(), a.body.len())
}

fn note(bin: &Path, root: &Path, n: usize) {
    run_ok(
        bin,
        root,
        &[
            "note",
            "1",
            &format!("bench {n}"),
            "--op",
            &format!("bench-note-{n:05}"),
            "--by",
            "lead",
        ],
    );
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn pages(bin: &Path, rows: u64) {
    let scratch = Scratch::new(&format!("bench-board-{rows}"));
    let root = long_checkout(&scratch.0, rows, rows);
    let (mut child, addr) = start(bin, &root);
    let (mut cold, mut warm, mut list) = (Vec::new(), Vec::new(), Vec::new());
    let (mut page_bytes, mut list_bytes) = (0, 0);
    for n in 0..ROUNDS {
        note(bin, &root, n);
        let (t, b) = get(&addr, "/");
        cold.push(t);
        page_bytes = b;
        warm.push(get(&addr, "/").0);
        let t = Instant::now();
        list_bytes = run_ok(bin, &root, &["list", "--json"]).len();
        list.push(t.elapsed());
    }
    for path in ["/graph", "/seats", "/timeline", "/row/1", "/lane/queued"] {
        get(&addr, path);
    }
    let rss = peak_rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let (cold, warm, list) = (median(cold), median(warm), median(list));
    println!(
        "{rows} rows: board page {:.2} ms after a write, {:.2} ms warm, {page_bytes} bytes; list --json {:.2} ms, {list_bytes} bytes; ratios {:.2}x / {:.2}x time, {:.2}x bytes",
        ms(cold),
        ms(warm),
        ms(list),
        ms(cold) / ms(list),
        ms(warm) / ms(list),
        page_bytes as f64 / list_bytes as f64
    );
    println!(
        "{rows} rows: the board's peak RSS after every page {:.1} MiB",
        rss as f64 / 1024.0
    );
}

/// Durable write to the stream's event, against the same write waking `wait`.
fn latency(bin: &Path, rows: u64) {
    let scratch = Scratch::new(&format!("bench-board-wait-{rows}"));
    let root = long_checkout(&scratch.0, rows, 0);
    let (mut child, addr) = start(bin, &root);
    let mut s = TcpStream::connect(&addr).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .unwrap();
    let (events_tx, events) = mpsc::channel::<Instant>();
    std::thread::spawn(move || {
        let mut r = BufReader::new(s);
        let mut line = String::new();
        while r.read_line(&mut line).is_ok_and(|n| n > 0) {
            if line.starts_with("event: revision") {
                let _ = events_tx.send(Instant::now());
            }
            line.clear();
        }
    });
    events.recv().unwrap(); // the revision now, sent as the stream opens
    let git = root.join(".git");
    let landings = witness_landings(&git);
    let (mut event, mut wait) = (Vec::new(), Vec::new());
    for n in 0..WRITES {
        let rev = run_ok(bin, &root, &["list", "--json"]);
        let rev: u64 = serde_json::from_str::<serde_json::Value>(&rev).unwrap()["revision"]
            .as_u64()
            .unwrap();
        let mut waiter = cleared(std::process::Command::new(bin))
            .args(["wait", "--revision-after", &rev.to_string()])
            .current_dir(&root)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        support::watch::until_watching(waiter.id(), &git);
        let (done_tx, done) = mpsc::channel::<Instant>();
        std::thread::spawn(move || {
            let _ = waiter.wait();
            let _ = done_tx.send(Instant::now());
        });
        note(bin, &root, n);
        let landed = landings.recv_timeout(Duration::from_secs(30)).unwrap();
        let e = events.recv_timeout(Duration::from_secs(30)).unwrap();
        let w = done.recv_timeout(Duration::from_secs(30)).unwrap();
        event.push(e.saturating_duration_since(landed));
        wait.push(w.saturating_duration_since(landed));
    }
    let _ = child.kill();
    let _ = child.wait();
    let (event, wait) = (median(event), median(wait));
    println!(
        "{rows} rows: durable write -> event on an open stream {:.2} ms; -> wait woken and exited {:.2} ms; ratio {:.2}x (target <= 1.5)",
        ms(event),
        ms(wait),
        ms(event) / ms(wait)
    );
}

/// Each instant the witness is renamed into place, as a thread of this bench blocked on its
/// own inotify watch of `.git` wakes to it: the durable write's moment, as near as a watcher
/// can tell.
fn witness_landings(git: &Path) -> mpsc::Receiver<Instant> {
    let fd = inotify::init(inotify::CreateFlags::CLOEXEC).unwrap();
    inotify::add_watch(&fd, git, WatchFlags::MOVED_TO).unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
        let mut r = inotify::Reader::new(&fd, &mut buf);
        while let Ok(e) = r.next() {
            if e.events().contains(ReadFlags::MOVED_TO)
                && e.file_name()
                    .is_some_and(|n| n.to_bytes() == b"mosaic-queue.head")
                && tx.send(Instant::now()).is_err()
            {
                return;
            }
        }
    });
    rx
}

fn main() {
    let bin = release_binary("bench-board");
    for rows in [1_000, 10_000] {
        pages(&bin, rows);
    }
    for rows in [1_000, 10_000] {
        latency(&bin, rows);
    }
    let size = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or(0);
    println!(
        "binary: {} bytes ({:.2} MB; budget 12 MB)",
        size,
        size as f64 / 1e6
    );
}
