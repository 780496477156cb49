//! Recording and faulting as one hook (test and fault-injection builds only): every call is
//! numbered from 1 in the order it is made and kept as an owned `Event`, in memory or appended
//! to a file as one JSON line; one chosen call fails with a chosen fault; and a halt stops every
//! call from a named step on, as a SIGKILL at that step would. The crash models read the events.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rustix::io::Errno;
use serde_json::{Value, json};

use super::hook::{Call, Fault, Hook};

/// A fault the sweep injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    Eio,
    Enospc,
    Edquot,
    Erofs,
    Eacces,
    /// Half the bytes of a write land, then ENOSPC; any other call gets EIO.
    Short,
}

impl FaultKind {
    pub const ALL: [FaultKind; 6] = [
        FaultKind::Eio,
        FaultKind::Enospc,
        FaultKind::Edquot,
        FaultKind::Erofs,
        FaultKind::Eacces,
        FaultKind::Short,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Eio => "eio",
            FaultKind::Enospc => "enospc",
            FaultKind::Edquot => "edquot",
            FaultKind::Erofs => "erofs",
            FaultKind::Eacces => "eacces",
            FaultKind::Short => "short",
        }
    }

    pub fn parse(s: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// What the fault does to `call`.
    pub fn fault(self, call: &Call<'_>) -> Fault {
        let errno = match self {
            FaultKind::Eio => Errno::IO,
            FaultKind::Enospc => Errno::NOSPC,
            FaultKind::Edquot => Errno::DQUOT,
            FaultKind::Erofs => Errno::ROFS,
            FaultKind::Eacces => Errno::ACCESS,
            FaultKind::Short if matches!(call, Call::Write(..)) => return Fault::Short,
            FaultKind::Short => Errno::IO,
        };
        Fault::Fail(io::Error::from_raw_os_error(errno.raw_os_error()))
    }
}

/// One call, owned: what and where, and a write's bytes (empty in a `Call` event, which says
/// only what was asked for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Read(PathBuf),
    List(PathBuf),
    Stat(PathBuf),
    Statfs(PathBuf),
    Create(PathBuf),
    Mkdir(PathBuf),
    Write(PathBuf, Vec<u8>),
    Fsync(PathBuf),
    Rename(PathBuf, PathBuf),
    Link(PathBuf, PathBuf),
    Unlink(PathBuf),
    FsyncDir(PathBuf),
}

impl Op {
    /// The call owned; with `bytes`, a write keeps what it wrote.
    pub fn of(call: &Call<'_>, bytes: bool) -> Op {
        let p = Path::to_path_buf;
        match *call {
            Call::Read(a) => Op::Read(p(a)),
            Call::List(a) => Op::List(p(a)),
            Call::Stat(a) => Op::Stat(p(a)),
            Call::Statfs(a) => Op::Statfs(p(a)),
            Call::Create(a) => Op::Create(p(a)),
            Call::Mkdir(a) => Op::Mkdir(p(a)),
            Call::Write(a, pieces) => Op::Write(p(a), if bytes { pieces.concat() } else { vec![] }),
            Call::Fsync(a) => Op::Fsync(p(a)),
            Call::Rename(a, b) => Op::Rename(p(a), p(b)),
            Call::Link(a, b) => Op::Link(p(a), p(b)),
            Call::Unlink(a) => Op::Unlink(p(a)),
            Call::FsyncDir(a) => Op::FsyncDir(p(a)),
        }
    }

    /// The name the trace file gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Read(_) => "read",
            Op::List(_) => "list",
            Op::Stat(_) => "stat",
            Op::Statfs(_) => "statfs",
            Op::Create(_) => "create",
            Op::Mkdir(_) => "mkdir",
            Op::Write(..) => "write",
            Op::Fsync(_) => "fsync",
            Op::Rename(..) => "rename",
            Op::Link(..) => "link",
            Op::Unlink(_) => "unlink",
            Op::FsyncDir(_) => "fsync_dir",
        }
    }

    /// The path it acts on (a rename's or link's source).
    pub fn path(&self) -> &Path {
        match self {
            Op::Read(a)
            | Op::List(a)
            | Op::Stat(a)
            | Op::Statfs(a)
            | Op::Create(a)
            | Op::Mkdir(a)
            | Op::Write(a, _)
            | Op::Fsync(a)
            | Op::Rename(a, _)
            | Op::Link(a, _)
            | Op::Unlink(a)
            | Op::FsyncDir(a) => a,
        }
    }

    /// A rename's or link's target.
    pub fn to(&self) -> Option<&Path> {
        match self {
            Op::Rename(_, b) | Op::Link(_, b) => Some(b),
            _ => None,
        }
    }

    fn json(&self) -> Value {
        let mut v = json!({"op": self.name(), "path": self.path().to_string_lossy()});
        if let Some(to) = self.to() {
            v["to"] = to.to_string_lossy().into();
        }
        if let Op::Write(_, bytes) = self {
            v["hex"] = bytes
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into();
        }
        v
    }

    fn from_json(v: &Value) -> Option<Op> {
        let path = PathBuf::from(v["path"].as_str()?);
        let to = || v["to"].as_str().map(PathBuf::from);
        Some(match v["op"].as_str()? {
            "read" => Op::Read(path),
            "list" => Op::List(path),
            "stat" => Op::Stat(path),
            "statfs" => Op::Statfs(path),
            "create" => Op::Create(path),
            "mkdir" => Op::Mkdir(path),
            "write" => Op::Write(path, unhex(v["hex"].as_str().unwrap_or(""))?),
            "fsync" => Op::Fsync(path),
            "rename" => Op::Rename(path, to()?),
            "link" => Op::Link(path, to()?),
            "unlink" => Op::Unlink(path),
            "fsync_dir" => Op::FsyncDir(path),
            _ => return None,
        })
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One line of a trace. `n` numbers the calls; a mark carries the number of the last call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A call about to run (a write without its bytes).
    Call { n: u64, op: Op },
    /// A call that succeeded, with what it did (the bytes a write landed).
    Ok { n: u64, op: Op },
    /// The call the faulting layer failed.
    Fault { n: u64, op: Op },
    /// A named point: `step` (a write step) or `printed` (a line on stdout).
    Mark { n: u64, what: String, text: String },
}

impl Event {
    /// The JSON line the trace file holds.
    pub fn to_json(&self) -> Value {
        let (mut v, n, ev) = match self {
            Event::Call { n, op } => (op.json(), n, "call"),
            Event::Ok { n, op } => (op.json(), n, "ok"),
            Event::Fault { n, op } => (op.json(), n, "fault"),
            Event::Mark { n, what, text } => (json!({"text": text}), n, what.as_str()),
        };
        v["n"] = (*n).into();
        v["ev"] = ev.into();
        v
    }

    /// A line of a trace file read back; `None` for one that is not an event.
    pub fn from_json(v: &Value) -> Option<Event> {
        let n = v["n"].as_u64()?;
        Some(match v["ev"].as_str()? {
            "call" => Event::Call {
                n,
                op: Op::from_json(v)?,
            },
            "ok" => Event::Ok {
                n,
                op: Op::from_json(v)?,
            },
            "fault" => Event::Fault {
                n,
                op: Op::from_json(v)?,
            },
            what => Event::Mark {
                n,
                what: what.to_owned(),
                text: v["text"].as_str()?.to_owned(),
            },
        })
    }
}

/// Where a tracer keeps its events.
#[derive(Debug)]
enum Sink {
    None,
    Memory(Mutex<Vec<Event>>),
    /// Appended and closed per line, so a SIGKILL loses nothing already recorded.
    File(PathBuf),
}

/// The recording and faulting hook. Calls are numbered from 1; `fail` fails one of them;
/// `halt` names a step after which no call runs and nothing more is recorded.
#[derive(Debug)]
pub struct Tracer {
    sink: Sink,
    fail: Option<(u64, FaultKind)>,
    halt: Option<String>,
    count: AtomicU64,
    fired: AtomicBool,
    halted: AtomicBool,
}

impl Tracer {
    fn with(sink: Sink) -> Tracer {
        Tracer {
            sink,
            fail: None,
            halt: None,
            count: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            halted: AtomicBool::new(false),
        }
    }

    /// Records every event in memory (`events`).
    pub fn memory() -> Tracer {
        Tracer::with(Sink::Memory(Mutex::new(Vec::new())))
    }

    /// Appends every event to `path` as a JSON line.
    pub fn file(path: PathBuf) -> Tracer {
        Tracer::with(Sink::File(path))
    }

    /// Counts calls and records nothing.
    pub fn counting() -> Tracer {
        Tracer::with(Sink::None)
    }

    /// Fails call number `at` with `kind`.
    pub fn failing(mut self, at: u64, kind: FaultKind) -> Tracer {
        self.fail = Some((at, kind));
        self
    }

    /// Stops every call once the step `name` is marked, as a SIGKILL there stops the process.
    pub fn halting_at(mut self, name: &str) -> Tracer {
        self.halt = Some(name.to_owned());
        self
    }

    /// Whether the fault it was given was injected.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::Relaxed)
    }

    /// Whether the halt was reached: nothing ran after it.
    pub fn halted(&self) -> bool {
        self.halted.load(Ordering::Relaxed)
    }

    /// How many calls were made (a halted process makes none after its halt).
    pub fn calls(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The events recorded in memory so far.
    pub fn events(&self) -> Vec<Event> {
        match &self.sink {
            Sink::Memory(events) => events.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            _ => Vec::new(),
        }
    }

    fn log(&self, event: Event) {
        match &self.sink {
            Sink::None => {}
            Sink::Memory(events) => events.lock().unwrap_or_else(|p| p.into_inner()).push(event),
            Sink::File(path) => {
                let mut text = event.to_json().to_string();
                text.push('\n');
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .and_then(|mut f| f.write_all(text.as_bytes()));
            }
        }
    }
}

impl Hook for Tracer {
    fn before(&self, call: &Call<'_>) -> Option<Fault> {
        if self.halted() {
            return Some(Fault::Fail(io::Error::other("the process was killed")));
        }
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        self.log(Event::Call {
            n,
            op: Op::of(call, false),
        });
        match self.fail {
            Some((at, kind)) if at == n => {
                self.fired.store(true, Ordering::Relaxed);
                self.log(Event::Fault {
                    n,
                    op: Op::of(call, true),
                });
                Some(kind.fault(call))
            }
            _ => None,
        }
    }

    fn after(&self, call: &Call<'_>) {
        let n = self.count.load(Ordering::Relaxed);
        self.log(Event::Ok {
            n,
            op: Op::of(call, true),
        });
    }

    fn mark(&self, what: &str, text: &str) {
        if self.halted() {
            return;
        }
        let n = self.count.load(Ordering::Relaxed);
        self.log(Event::Mark {
            n,
            what: what.to_owned(),
            text: text.to_owned(),
        });
        if what == "step" && self.halt.as_deref() == Some(text) {
            self.halted.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_back_from_their_json_lines() {
        let events = [
            Event::Call {
                n: 1,
                op: Op::Write("/r/a".into(), vec![]),
            },
            Event::Ok {
                n: 1,
                op: Op::Write("/r/a".into(), b"\x00hi\xff".to_vec()),
            },
            Event::Fault {
                n: 2,
                op: Op::Rename("/r/a".into(), "/r/b".into()),
            },
            Event::Mark {
                n: 2,
                what: "printed".into(),
                text: "ok x rev 2".into(),
            },
        ];
        for e in events {
            let line = e.to_json().to_string();
            let back: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(Event::from_json(&back), Some(e));
        }
    }

    #[test]
    fn a_halt_stops_every_call_after_its_step_and_records_nothing_more() {
        let t = Tracer::memory()
            .halting_at("queue-renamed")
            .failing(9, FaultKind::Eio);
        let p = Path::new("/r/x");
        assert!(t.before(&Call::Read(p)).is_none());
        t.after(&Call::Read(p));
        t.mark("step", "queue-renamed");
        assert!(t.halted());
        assert!(matches!(t.before(&Call::Unlink(p)), Some(Fault::Fail(_))));
        t.mark("printed", "ok never");
        assert_eq!(t.calls(), 1);
        assert_eq!(t.events().len(), 3);
        assert!(!t.fired());
    }
}
