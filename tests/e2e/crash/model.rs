//! The two crash models of docs/durability.md, applied to a recorded trace: which file states a
//! power loss at any point of one run may leave, and which receipts had printed before it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

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
    /// A named step of the run (`request-sending`, `request-posted`: the review request's POST
    /// falls between them).
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
    /// Inode contents: the files the run found (`initial`) hold their bytes, the others
    /// are the files it created.
    pub inodes: Vec<Vec<u8>>,
    pub initial: BTreeMap<PathBuf, usize>,
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

fn path_of(v: &Value, key: &str) -> PathBuf {
    PathBuf::from(v[key].as_str().expect("a path"))
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

impl Trace {
    /// Reads the trace file the run wrote (`MOSAIC_IO_TRACE`); files the run found are read
    /// from `before`, a copy of the checkout taken before the run (same layout under `root`).
    pub fn parse(text: &str, root: &Path, before: &Path) -> Trace {
        let mut t = Trace {
            effects: Vec::new(),
            inodes: Vec::new(),
            initial: BTreeMap::new(),
        };
        let mut names: BTreeMap<PathBuf, Option<usize>> = BTreeMap::new();
        let resolve = |t: &mut Trace, names: &mut BTreeMap<PathBuf, Option<usize>>, p: &Path| {
            if let Some(known) = names.get(p) {
                return *known;
            }
            let found = std::fs::read(before.join(p.strip_prefix(root).unwrap())).ok();
            let inode = found.map(|bytes| {
                t.inodes.push(bytes);
                t.initial.insert(p.to_path_buf(), t.inodes.len() - 1);
                t.inodes.len() - 1
            });
            names.insert(p.to_path_buf(), inode);
            inode
        };
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).expect("a trace line");
            let ev = v["ev"].as_str().unwrap();
            if ev == "printed" {
                for l in v["text"].as_str().unwrap().lines() {
                    t.effects.push(Effect::Printed(l.to_owned()));
                }
                continue;
            }
            if ev == "step" {
                let name = v["text"].as_str().unwrap();
                if name.starts_with("request-") {
                    t.effects.push(Effect::Step(name.to_owned()));
                }
                continue;
            }
            if ev != "ok" {
                continue;
            }
            let dir = |p: &Path| p.parent().unwrap().to_path_buf();
            match v["op"].as_str().unwrap() {
                "create" => {
                    let p = path_of(&v, "path");
                    resolve(&mut t, &mut names, &p);
                    t.inodes.push(Vec::new());
                    let inode = t.inodes.len() - 1;
                    names.insert(p.clone(), Some(inode));
                    t.effects.push(Effect::Dirents {
                        dir: dir(&p),
                        set: vec![(p, Some(inode))],
                    });
                }
                "write" => {
                    let p = path_of(&v, "path");
                    let inode = resolve(&mut t, &mut names, &p).expect("a write to a file");
                    t.effects.push(Effect::Data {
                        inode,
                        bytes: unhex(v["hex"].as_str().unwrap()),
                    });
                }
                "fsync" => {
                    let p = path_of(&v, "path");
                    let inode = resolve(&mut t, &mut names, &p).expect("an fsync of a file");
                    t.effects.push(Effect::FileSync { inode });
                }
                "rename" | "link" => {
                    let (from, to) = (path_of(&v, "path"), path_of(&v, "to"));
                    let inode = resolve(&mut t, &mut names, &from).expect("a source");
                    resolve(&mut t, &mut names, &to);
                    let mut set = vec![(to.clone(), Some(inode))];
                    names.insert(to.clone(), Some(inode));
                    if v["op"] == "rename" {
                        set.insert(0, (from.clone(), None));
                        names.insert(from.clone(), None);
                    }
                    assert_eq!(dir(&from), dir(&to), "the store renames within a directory");
                    t.effects.push(Effect::Dirents { dir: dir(&to), set });
                }
                "unlink" => {
                    let p = path_of(&v, "path");
                    resolve(&mut t, &mut names, &p);
                    names.insert(p.clone(), None);
                    t.effects.push(Effect::Dirents {
                        dir: dir(&p),
                        set: vec![(p, None)],
                    });
                }
                "fsync_dir" => t.effects.push(Effect::DirSync {
                    dir: path_of(&v, "path"),
                }),
                _ => {} // reads, lists, stats: no effect on disk
            }
        }
        t
    }

    /// Every path the run touched.
    pub fn touched(&self) -> BTreeSet<PathBuf> {
        let mut all: BTreeSet<PathBuf> = self.initial.keys().cloned().collect();
        for e in &self.effects {
            if let Effect::Dirents { set, .. } = e {
                all.extend(set.iter().map(|(p, _)| p.clone()));
            }
        }
        all
    }

    /// Applies the chosen effects (in trace order) to the state before the run. `data` gives
    /// how many bytes of each chosen data effect land (a torn write lands a prefix).
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
        self.touched()
            .into_iter()
            .map(|p| {
                let bytes = names.get(&p).copied().flatten().map(|i| inodes[i].clone());
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

    /// ext4 `data=ordered`: metadata reaches the journal in order, so a crash keeps a prefix of
    /// the effects, at least up to the last fsync (of any file or directory) that returned;
    /// data not yet fsynced within the prefix may be missing or torn at 4 KiB (delayed
    /// allocation writes it back later than the inode).
    pub fn ext4_states(&self) -> Vec<State> {
        let mut out = Vec::new();
        let n = self.effects.len();
        let mut durable = 0; // effects up to the last returned fsync
        for c in 0..=n {
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
                let acked = self.printed_before(c);
                let unsynced: Vec<usize> = (0..k)
                    .filter(|&i| match &self.effects[i] {
                        Effect::Data { inode, .. } => !self.effects[i + 1..k]
                            .iter()
                            .any(|e| matches!(e, Effect::FileSync { inode: j } if j == inode)),
                        _ => false,
                    })
                    .collect();
                for lens in self.choices(&unsynced) {
                    let chosen: Vec<(usize, usize)> = (0..k)
                        .map(|i| (i, lens.get(&i).copied().unwrap_or_else(|| self.full(i))))
                        .collect();
                    let files = self.apply(&chosen);
                    for &posted in self.posted_at(c) {
                        out.push(State {
                            files: files.clone(),
                            acked: acked.clone(),
                            posted,
                        });
                    }
                }
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
        let n = self.effects.len();
        for c in 0..=n {
            let acked = self.printed_before(c);
            let mut forced = Vec::new();
            let mut free = Vec::new();
            for i in 0..c {
                let later = &self.effects[i + 1..c];
                match &self.effects[i] {
                    Effect::Dirents { dir, .. } => {
                        if later
                            .iter()
                            .any(|e| matches!(e, Effect::DirSync { dir: d } if d == dir))
                        {
                            forced.push(i);
                        } else {
                            free.push(i);
                        }
                    }
                    Effect::Data { inode, .. } => {
                        if later
                            .iter()
                            .any(|e| matches!(e, Effect::FileSync { inode: j } if j == inode))
                        {
                            forced.push(i);
                        } else {
                            free.push(i);
                        }
                    }
                    _ => {}
                }
            }
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
                for lens in self.choices(&data) {
                    let mut all: Vec<usize> = forced.iter().chain(&kept).copied().collect();
                    all.sort_unstable();
                    let chosen: Vec<(usize, usize)> = all
                        .into_iter()
                        .map(|i| (i, lens.get(&i).copied().unwrap_or_else(|| self.full(i))))
                        .collect();
                    let files = self.apply(&chosen);
                    for &posted in self.posted_at(c) {
                        out.push(State {
                            files: files.clone(),
                            acked: acked.clone(),
                            posted,
                        });
                    }
                }
            }
        }
        merge(out)
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
