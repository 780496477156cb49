//! The two crash models of docs/durability.md (test and fault-injection builds only), applied
//! to a recorded trace: which file states a power loss at any point of one run may leave, and
//! which receipts had printed before it. The same models read a trace taken in memory and one
//! the real binary wrote (`MOSAIC_IO_TRACE`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::trace::{Event, Op};

/// One recorded effect on the file system, with inodes resolved as the run saw them.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Directory entries of one directory set at once (a rename sets two, atomically).
    Dirents {
        dir: PathBuf,
        set: Vec<(PathBuf, Option<usize>)>,
    },
    /// The whole contents of an inode (every write the store makes fills a fresh file).
    Data {
        inode: usize,
        bytes: Vec<u8>,
    },
    FileSync {
        inode: usize,
    },
    DirSync {
        dir: PathBuf,
    },
    /// A line printed on stdout (a receipt is `ok <op> rev N ...`).
    Printed(String),
    /// A named step of a review request (`request-sending`, `request-posted`: the POST falls
    /// between them).
    Step(String),
}

/// Whether a review request's comment exists on Gitea at the crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Posted {
    /// Nothing was sent.
    No,
    /// The POST's answer came back: the comment exists.
    Yes,
}

/// A recorded run: its effects and the inodes that existed before it.
#[derive(Debug, Clone)]
pub struct Trace {
    pub effects: Vec<Effect>,
    /// Inode contents: the files the run found (`initial`) hold their bytes, the others are
    /// the files it created.
    pub inodes: Vec<Vec<u8>>,
    pub initial: BTreeMap<PathBuf, usize>,
    /// The directories the run created: a crash that loses one's entry loses what is in it.
    pub dirs: BTreeSet<PathBuf>,
}

/// What a crash state holds: every path the run touched, with its bytes or `None` (absent).
pub type Files = BTreeMap<PathBuf, Option<Vec<u8>>>;

/// A crash state and the receipts printed before some crash that leaves it.
#[derive(Debug, Clone)]
pub struct State {
    pub files: Files,
    pub acked: BTreeSet<String>,
    /// What Gitea holds: a crash during the POST leaves either (two states).
    pub posted: Posted,
}

/// The names the trace has resolved to inodes, and the inodes it knows.
struct Resolver<F> {
    names: BTreeMap<PathBuf, Option<usize>>,
    before: F,
}

impl<F: Fn(&Path) -> Option<Vec<u8>>> Resolver<F> {
    /// The inode at `p` as the run saw it: one it created, or the file found before the run.
    fn at(&mut self, t: &mut Trace, p: &Path) -> Option<usize> {
        if let Some(known) = self.names.get(p) {
            return *known;
        }
        let inode = (self.before)(p).map(|bytes| {
            t.inodes.push(bytes);
            t.initial.insert(p.to_path_buf(), t.inodes.len() - 1);
            t.inodes.len() - 1
        });
        self.names.insert(p.to_path_buf(), inode);
        inode
    }
}

fn dir_of(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

impl Trace {
    /// The effects of `events` (the calls that succeeded, the lines printed and a review
    /// request's steps); `before` gives the bytes a path held before the run.
    pub fn new(events: &[Event], before: impl Fn(&Path) -> Option<Vec<u8>>) -> Trace {
        let mut t = Trace {
            effects: Vec::new(),
            inodes: Vec::new(),
            initial: BTreeMap::new(),
            dirs: BTreeSet::new(),
        };
        let mut r = Resolver {
            names: BTreeMap::new(),
            before,
        };
        for event in events {
            match event {
                Event::Mark { what, text, .. } if what == "printed" => t
                    .effects
                    .extend(text.lines().map(|l| Effect::Printed(l.to_owned()))),
                Event::Mark { what, text, .. }
                    if what == "step" && text.starts_with("request-") =>
                {
                    t.effects.push(Effect::Step(text.clone()));
                }
                Event::Ok { op, .. } => t.effect(&mut r, op),
                _ => {}
            }
        }
        t
    }

    /// The effect of one call that succeeded; reads, listings and stats have none.
    fn effect<F: Fn(&Path) -> Option<Vec<u8>>>(&mut self, r: &mut Resolver<F>, op: &Op) {
        match op {
            Op::Create(p) => {
                r.at(self, p);
                self.inodes.push(Vec::new());
                let inode = self.inodes.len() - 1;
                r.names.insert(p.clone(), Some(inode));
                self.effects.push(Effect::Dirents {
                    dir: dir_of(p),
                    set: vec![(p.clone(), Some(inode))],
                });
            }
            Op::Mkdir(p) => {
                self.inodes.push(Vec::new());
                let inode = self.inodes.len() - 1;
                r.names.insert(p.clone(), Some(inode));
                self.dirs.insert(p.clone());
                self.effects.push(Effect::Dirents {
                    dir: dir_of(p),
                    set: vec![(p.clone(), Some(inode))],
                });
            }
            Op::Write(p, bytes) => {
                let inode = r.at(self, p).expect("a write to a file");
                self.effects.push(Effect::Data {
                    inode,
                    bytes: bytes.clone(),
                });
            }
            Op::Fsync(p) => {
                let inode = r.at(self, p).expect("an fsync of a file");
                self.effects.push(Effect::FileSync { inode });
            }
            Op::Rename(from, to) | Op::Link(from, to) => {
                let inode = r.at(self, from).expect("a source");
                r.at(self, to);
                let mut set = vec![(to.clone(), Some(inode))];
                r.names.insert(to.clone(), Some(inode));
                if matches!(op, Op::Rename(..)) {
                    set.insert(0, (from.clone(), None));
                    r.names.insert(from.clone(), None);
                }
                assert_eq!(
                    dir_of(from),
                    dir_of(to),
                    "the store renames within a directory"
                );
                self.effects.push(Effect::Dirents {
                    dir: dir_of(to),
                    set,
                });
            }
            Op::Unlink(p) => {
                r.at(self, p);
                r.names.insert(p.clone(), None);
                self.effects.push(Effect::Dirents {
                    dir: dir_of(p),
                    set: vec![(p.clone(), None)],
                });
            }
            Op::FsyncDir(p) => self.effects.push(Effect::DirSync { dir: p.clone() }),
            Op::Read(_) | Op::List(_) | Op::Stat(_) | Op::Statfs(_) => {}
        }
    }

    /// Every file the run touched (the directories it created are not files).
    pub fn touched(&self) -> BTreeSet<PathBuf> {
        let mut all: BTreeSet<PathBuf> = self.initial.keys().cloned().collect();
        for e in &self.effects {
            if let Effect::Dirents { set, .. } = e {
                all.extend(set.iter().map(|(p, _)| p.clone()));
            }
        }
        all.retain(|p| !self.dirs.contains(p));
        all
    }

    /// Applies the chosen effects (in trace order) to the state before the run; each comes
    /// with how many bytes of it land (a torn write lands a prefix).
    fn apply(&self, chosen: &[(usize, usize)]) -> Files {
        let mut names: BTreeMap<PathBuf, Option<usize>> = self
            .initial
            .iter()
            .map(|(p, i)| (p.clone(), Some(*i)))
            .collect();
        // Files the run found hold their bytes; every file it created starts empty.
        let found: BTreeSet<usize> = self.initial.values().copied().collect();
        let mut inodes: Vec<Vec<u8>> = self.inodes.clone();
        for (i, bytes) in inodes.iter_mut().enumerate() {
            if !found.contains(&i) {
                bytes.clear();
            }
        }
        for &(i, len) in chosen {
            match &self.effects[i] {
                Effect::Dirents { set, .. } => {
                    for (p, inode) in set {
                        names.insert(p.clone(), *inode);
                    }
                }
                Effect::Data { inode, bytes } => inodes[*inode] = bytes[..len].to_vec(),
                _ => {}
            }
        }
        // A file in a directory the run created exists only if that directory's entry does.
        let dir_kept = |p: &Path| {
            p.ancestors()
                .skip(1)
                .all(|a| !self.dirs.contains(a) || names.get(a).copied().flatten().is_some())
        };
        self.touched()
            .into_iter()
            .map(|p| {
                let bytes = names
                    .get(&p)
                    .copied()
                    .flatten()
                    .filter(|_| dir_kept(&p))
                    .map(|i| inodes[i].clone());
                (p, bytes)
            })
            .collect()
    }

    /// Receipts printed before effect `c` (a crash after the first `c` effects ran).
    fn printed_before(&self, c: usize) -> BTreeSet<String> {
        self.effects[..c]
            .iter()
            .filter_map(|e| match e {
                Effect::Printed(line) if is_receipt(line) => Some(line.clone()),
                _ => None,
            })
            .collect()
    }

    /// What Gitea may hold after a crash following the first `c` effects: nothing before the
    /// request is sent, the comment once its answer came back, either in between.
    fn posted_at(&self, c: usize) -> &'static [Posted] {
        let seen = |name: &str| {
            self.effects[..c]
                .iter()
                .any(|e| matches!(e, Effect::Step(s) if s == name))
        };
        if seen("request-posted") {
            &[Posted::Yes]
        } else if seen("request-sending") {
            &[Posted::No, Posted::Yes]
        } else {
            &[Posted::No]
        }
    }

    /// The lengths a data effect may land with when it is not yet synced: nothing, each 4 KiB
    /// boundary below its length, or all of it.
    fn torn(bytes: &[u8]) -> Vec<usize> {
        let mut lens: Vec<usize> = (0..bytes.len()).step_by(4096).collect();
        lens.push(bytes.len());
        lens
    }

    /// The states the chosen effects leave (each unsynced data effect in `unsynced` landing
    /// at each length it may), with the receipts and Gitea's answers of crash point `c`.
    fn states_of(&self, chosen: &[usize], unsynced: &[usize], c: usize, out: &mut Vec<State>) {
        let acked = self.printed_before(c);
        for lens in self.choices(unsynced) {
            let landed: Vec<(usize, usize)> = chosen
                .iter()
                .map(|&i| (i, lens.get(&i).copied().unwrap_or_else(|| self.full(i))))
                .collect();
            let files = self.apply(&landed);
            for &posted in self.posted_at(c) {
                out.push(State {
                    files: files.clone(),
                    acked: acked.clone(),
                    posted,
                });
            }
        }
    }

    /// ext4 `data=ordered`: metadata reaches the journal in order, so a crash keeps a prefix of
    /// the effects, at least up to the last fsync (of any file or directory) that returned;
    /// data not yet fsynced within the prefix may be missing or torn at 4 KiB (delayed
    /// allocation writes it back later than the inode).
    pub fn ext4_states(&self) -> Vec<State> {
        let mut out = Vec::new();
        let mut durable = 0; // effects up to the last returned fsync
        for c in 0..=self.effects.len() {
            if c > 0
                && matches!(
                    self.effects[c - 1],
                    Effect::FileSync { .. } | Effect::DirSync { .. }
                )
            {
                durable = c;
            }
            // A crash at c keeps any prefix k with durable <= k <= c.
            for k in durable..=c {
                let unsynced: Vec<usize> = (0..k)
                    .filter(|&i| match &self.effects[i] {
                        Effect::Data { inode, .. } => !self.effects[i + 1..k]
                            .iter()
                            .any(|e| matches!(e, Effect::FileSync { inode: j } if j == inode)),
                        _ => false,
                    })
                    .collect();
                let prefix: Vec<usize> = (0..k).collect();
                self.states_of(&prefix, &unsynced, c, &mut out);
            }
        }
        merge(out)
    }

    /// The weak model: an effect is kept for certain only once an fsync that covers it returned
    /// (a file's data by an fsync of that file, a directory entry by an fsync of its
    /// directory); every other effect before the crash may be kept or lost independently of
    /// the others, in any order; unsynced data may be torn at 4 KiB; a rename stays atomic.
    pub fn weak_states(&self) -> Vec<State> {
        let mut out = Vec::new();
        for c in 0..=self.effects.len() {
            let (forced, free) = self.covered(c);
            assert!(
                free.len() <= 16,
                "{} unsynced effects at crash point {c}",
                free.len()
            );
            for mask in 0u32..(1 << free.len()) {
                let kept: Vec<usize> = free
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| mask & (1 << b) != 0)
                    .map(|(_, &i)| i)
                    .collect();
                let data: Vec<usize> = kept
                    .iter()
                    .copied()
                    .filter(|&i| matches!(self.effects[i], Effect::Data { .. }))
                    .collect();
                let mut all: Vec<usize> = forced.iter().chain(&kept).copied().collect();
                all.sort_unstable();
                self.states_of(&all, &data, c, &mut out);
            }
        }
        merge(out)
    }

    /// Of the effects before crash point `c`, those an fsync before `c` covers (kept) and
    /// those none covers (kept or lost).
    fn covered(&self, c: usize) -> (Vec<usize>, Vec<usize>) {
        let (mut forced, mut free) = (Vec::new(), Vec::new());
        for i in 0..c {
            let later = &self.effects[i + 1..c];
            let synced = match &self.effects[i] {
                Effect::Dirents { dir, .. } => later
                    .iter()
                    .any(|e| matches!(e, Effect::DirSync { dir: d } if d == dir)),
                Effect::Data { inode, .. } => later
                    .iter()
                    .any(|e| matches!(e, Effect::FileSync { inode: j } if j == inode)),
                _ => continue,
            };
            if synced {
                forced.push(i);
            } else {
                free.push(i);
            }
        }
        (forced, free)
    }

    fn full(&self, i: usize) -> usize {
        match &self.effects[i] {
            Effect::Data { bytes, .. } => bytes.len(),
            _ => 0,
        }
    }

    /// Every combination of landed lengths for the unsynced data effects `of`.
    fn choices(&self, of: &[usize]) -> Vec<BTreeMap<usize, usize>> {
        let mut all = vec![BTreeMap::new()];
        for &i in of {
            let Effect::Data { bytes, .. } = &self.effects[i] else {
                continue;
            };
            let mut next = Vec::new();
            for m in &all {
                for len in Trace::torn(bytes) {
                    let mut m = m.clone();
                    m.insert(i, len);
                    next.push(m);
                }
            }
            all = next;
        }
        all
    }
}

/// One state per distinct set of files and Gitea's comment; the receipts are every receipt
/// printed before any crash that leaves it (the strongest claim to check).
fn merge(states: Vec<State>) -> Vec<State> {
    let mut by_files: BTreeMap<(Files, Posted), BTreeSet<String>> = BTreeMap::new();
    for s in states {
        by_files
            .entry((s.files, s.posted))
            .or_default()
            .extend(s.acked);
    }
    by_files
        .into_iter()
        .map(|((files, posted), acked)| State {
            files,
            acked,
            posted,
        })
        .collect()
}

/// A change's receipt, `ok <op> rev N ...`: op ids are 8 to 72 characters, which tells them
/// from the answers of sync, render, verify, unlock and commit (`ok sync rev N: ...`).
pub fn is_receipt(line: &str) -> bool {
    let mut words = line.split(' ');
    words.next() == Some("ok")
        && words
            .next()
            .is_some_and(|op| op.len() >= 8 && op != "snapshot")
        && words.next() == Some("rev")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(n: u64, op: Op) -> Event {
        Event::Ok { n, op }
    }

    /// A temp file written, fsynced and renamed over `f`, then the directory fsynced: the
    /// states each model allows, counted by hand.
    #[test]
    fn the_models_allow_exactly_the_states_counted_by_hand() {
        let (t, f, d) = (
            PathBuf::from("/d/t"),
            PathBuf::from("/d/f"),
            PathBuf::from("/d"),
        );
        let events = [
            ok(1, Op::Create(t.clone())),
            ok(2, Op::Write(t.clone(), b"new".to_vec())),
            ok(3, Op::Fsync(t.clone())),
            ok(4, Op::Rename(t.clone(), f.clone())),
            ok(5, Op::FsyncDir(d)),
        ];
        let trace = Trace::new(&events, |p| (p == f).then(|| b"old".to_vec()));
        let shown = |states: Vec<State>| -> Vec<String> {
            states
                .iter()
                .map(|s| {
                    let v = |p: &PathBuf| match &s.files[p] {
                        Some(b) => String::from_utf8_lossy(b).into_owned(),
                        None => "-".to_owned(),
                    };
                    format!("t={} f={}", v(&t), v(&f))
                })
                .collect()
        };
        // ext4: a prefix; the data before its fsync may be missing.
        assert_eq!(
            shown(trace.ext4_states()),
            ["t=- f=new", "t=- f=old", "t= f=old", "t=new f=old"]
        );
        // weak: any subset of the unsynced effects, here the same four states.
        assert_eq!(
            shown(trace.weak_states()),
            ["t=- f=new", "t=- f=old", "t= f=old", "t=new f=old"]
        );
    }

    #[test]
    fn receipts_are_told_from_other_answers() {
        assert!(is_receipt("ok darkwing-1-note rev 2 note 1"));
        assert!(!is_receipt("ok sync rev 2: 1 op confirmed durable"));
        assert!(!is_receipt("ok snapshot rev 2"));
        assert!(!is_receipt(
            "durable darkwing-1-note rev 2 (by darkwing): tell darkwing"
        ));
    }
}
