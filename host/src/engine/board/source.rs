//! The board's one door into the rest of the host: it finds the checkout, reads the queue as
//! the unlocked reads do (the witness rule, no lock; archives for archived rows), watches the
//! witness as `wait` does, and turns what it read into a `Snapshot`. Every other part of the
//! board sees only the snapshot and the few values below.

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

use mosaic_queue_core::signs::{Claim, Heartbeat, Signs};
use mosaic_queue_core::{Entry, Queue, Row, VerbError};

use super::snapshot::{ArchiveRef, Card, IssueLinks, LogItem, ReviewState, Seat, Snapshot, Touch};
use crate::checkout::Paths;
use crate::clock;
use crate::gitea::{self, GiteaError};
use crate::io::{FileId, Io, RealIo};
use crate::read::claims::Seen;
use crate::read::cut;
use crate::reply::{Failure, entry_row};
use crate::store;
use crate::store::heartbeat;
use crate::store::session;
use crate::store::watch::{self, WitnessWatch};
use crate::store::world::World;

/// The checkout the board serves and the last snapshot read from it.
pub struct Source {
    paths: Paths,
    issues: Option<IssueLinks>,
    cache: Mutex<Option<(Key, Arc<Snapshot>)>>,
}

/// What a snapshot was read from: the witness, and the identity of queue.json and of
/// `.git/HEAD` (a snapshot is also read again once a claim in it turns, `Snapshot::turns`). A write renames a new queue.json into place (a new inode) and then a new
/// witness; a hand edit changes the file's size or times; a branch switch rewrites HEAD. Any
/// of them reads the queue again, as the read view's own check does. Claims change state
/// with time and heartbeats too: a heartbeat renamed into its folder changes the folder's
/// times, and the minute is part of the key, so a claim's state is never a minute old.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    witness: Option<mosaic_queue_core::Witness>,
    queue: FileId,
    head: Option<FileId>,
    beats: Option<FileId>,
    /// The follower's record: a push shows as the replicated revision.
    replicated: Option<FileId>,
    minute: i64,
}

/// An archived row as its archive holds it, with every entry that touched it.
pub struct ArchivedRow {
    pub card: Card,
    pub file: String,
    pub log: Vec<LogItem>,
}

impl Source {
    /// The checkout around the working directory, and where issues link (`MOSAIC_GITEA_URL`
    /// and `MOSAIC_GITEA_REPO`, both or neither, checked; no credential is read).
    pub fn open() -> Result<Source, Failure> {
        let paths = session::locate()?;
        let issues = issue_links(|name| std::env::var_os(name))?;
        let source = Source {
            paths,
            issues,
            cache: Mutex::new(None),
        };
        // The first read now: a checkout the reads refuse is refused before anything listens.
        source.snapshot()?;
        Ok(source)
    }

    /// The queue as an unlocked read sees it now; the last snapshot when nothing changed.
    pub fn snapshot(&self) -> Result<Arc<Snapshot>, Failure> {
        // Taken before the read: a write landing during it changes the key, so the next
        // request reads again rather than keep a snapshot under a key it does not match.
        let key = self.key();
        if let (Some(key), Ok(cache)) = (&key, self.cache.lock())
            && let Some((cached, snapshot)) = cache.as_ref()
            && cached == key
            && snapshot.turns.is_none_or(|t| clock::now_millis() < t)
        {
            return Ok(Arc::clone(snapshot));
        }
        let loaded = session::load_unlocked(World::real(), &self.paths)?;
        let durable = !loaded.ahead_of_witness();
        let seen = Seen::read(World::real(), &self.paths, loaded.queue.state());
        let mut snapshot = build(&loaded.queue, durable, &seen, self.issues.clone());
        snapshot.replicated = store::replicated::read(&RealIo, &self.paths)
            .read_ok()
            .map(|r| r.revision);
        let snapshot = Arc::new(snapshot);
        if let (Some(key), Ok(mut cache)) = (key, self.cache.lock()) {
            *cache = Some((key, Arc::clone(&snapshot)));
        }
        Ok(snapshot)
    }

    /// The revision the witness vouches durable now, read as `wait` reads it (the read view
    /// when it is current); while queue.json is ahead of its witness, the revision visible.
    pub fn revision(&self) -> Result<(u64, bool), Failure> {
        match session::read_durable(World::real(), &self.paths)? {
            Some(state) => Ok((state.revision, true)),
            None => self.snapshot().map(|s| (s.revision, s.durable)),
        }
    }

    fn key(&self) -> Option<Key> {
        let witness = store::read_witness(&RealIo, &self.paths).ok()?;
        let queue = RealIo.file_id(&self.paths.queue_json).ok()?;
        let head = RealIo.file_id(&self.paths.git_dir.join("HEAD")).ok();
        let beats = RealIo.file_id(&heartbeat::folder(&self.paths)).ok();
        let replicated = RealIo.file_id(&store::replicated::path(&self.paths)).ok();
        Some(Key {
            witness,
            queue,
            head,
            beats,
            replicated,
            minute: clock::now_millis().div_euclid(60_000),
        })
    }

    /// Row `id` from the archive a cut wrote it to; `None` when no cut archived it (no such
    /// row, or one the queue holds).
    pub fn archived_row(&self, id: u64) -> Result<Option<ArchivedRow>, Failure> {
        let queue = session::load_unlocked(World::real(), &self.paths)?.queue;
        let epoch = match queue.state().row(id) {
            Err(VerbError::RowArchived { epoch, .. }) => epoch,
            _ => return Ok(None),
        };
        let found = cut::row(&RealIo, &self.paths, &queue, id, epoch)?;
        let row = found.row()?.clone();
        let entries = cut::entries(&self.paths, &queue, epoch)?;
        let log: Vec<LogItem> = entries
            .iter()
            .map(log_item)
            .filter(|e| e.touches(id))
            .collect();
        let last = log.last().map(|e| Touch {
            rev: e.rev,
            at: e.at.clone(),
        });
        let reason = found.state().move_reason(id).map(str::to_owned);
        Ok(Some(ArchivedRow {
            card: card(row, reason, last, None),
            file: found.file.clone(),
            log,
        }))
    }

    /// Every entry the archives hold, oldest first (the history before this epoch).
    pub fn archived_log(&self) -> Result<Vec<LogItem>, Failure> {
        let queue = session::load_unlocked(World::real(), &self.paths)?.queue;
        let Some(last) = queue
            .epoch()
            .and_then(|e| e.archives.last())
            .map(|a| a.epoch)
        else {
            return Ok(Vec::new());
        };
        Ok(cut::entries(&self.paths, &queue, last)?
            .iter()
            .map(log_item)
            .collect())
    }

    /// A watch on the witness, set before the caller first reads, as `wait` sets it.
    pub fn changes(&self) -> Result<Changes, Failure> {
        WitnessWatch::new(&self.paths)
            .map(|watch| Changes { watch })
            .map_err(|e| Failure::failed(format!("cannot watch .git for the witness: {e}")))
    }
}

/// Durable writes as they happen: the witness renamed into place (or `.git` replaced).
pub struct Changes {
    watch: WitnessWatch,
}

impl Changes {
    /// Blocks until the witness may have changed (true) or the host's clock reaches `until`
    /// (false; milliseconds since the epoch, a snapshot's `turns`; `None` waits for as long as
    /// it takes); an `Interrupted` error once `stop` (given to `stoppable`) is readable.
    pub fn wait(&mut self, until: Option<i64>) -> std::io::Result<bool> {
        let until = until.map(|t| {
            let left = t.saturating_sub(clock::now_millis()).max(0);
            std::time::Instant::now() + std::time::Duration::from_millis(left.unsigned_abs())
        });
        self.watch.wait(until)
    }
}

/// Runs `f` with this thread's witness waits ended once `stop` is readable.
pub fn stoppable<T>(stop: Arc<OwnedFd>, f: impl FnOnce() -> T) -> T {
    watch::stoppable(stop, f)
}

/// Where issue numbers link, from the two variables: both set and valid, or neither.
fn issue_links(
    get: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<Option<IssueLinks>, Failure> {
    let text = |name: &'static str| -> Result<Option<String>, Failure> {
        match get(name) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => v
                .into_string()
                .map(Some)
                .map_err(|_| refused(GiteaError::NotUnicode(name))),
        }
    };
    let (url, repo) = match (text("MOSAIC_GITEA_URL")?, text("MOSAIC_GITEA_REPO")?) {
        (None, None) => return Ok(None),
        (Some(url), Some(repo)) => (url, repo),
        (Some(_), None) => {
            return Err(Failure::refused(
                "MOSAIC_GITEA_REPO is not set while MOSAIC_GITEA_URL is; set it to owner/name to link issues, or unset MOSAIC_GITEA_URL",
            ));
        }
        (None, Some(_)) => {
            return Err(Failure::refused(
                "MOSAIC_GITEA_URL is not set while MOSAIC_GITEA_REPO is; set it to the instance's base URL to link issues, or unset MOSAIC_GITEA_REPO",
            ));
        }
    };
    let url = url.trim_end_matches('/');
    if let Some(problem) = gitea::url_problem(url) {
        return Err(refused(GiteaError::BadUrl(problem)));
    }
    match repo.split_once('/') {
        Some((o, n)) if gitea::valid_name(o) && gitea::valid_name(n) => Ok(Some(IssueLinks {
            base: format!("{url}/{o}/{n}"),
        })),
        _ => Err(refused(GiteaError::BadRepo(repo))),
    }
}

fn refused(e: GiteaError) -> Failure {
    Failure::refused(e.to_string())
}

/// The snapshot of a verified queue, its leased claims judged with what `seen` read.
fn build(queue: &Queue, durable: bool, seen: &Seen, issues: Option<IssueLinks>) -> Snapshot {
    let state = queue.state();
    let log: Vec<LogItem> = queue.file().log.iter().map(log_item).collect();
    let mut last: std::collections::HashMap<u64, Touch> = std::collections::HashMap::new();
    for item in &log {
        let touch = || Touch {
            rev: item.rev,
            at: item.at.clone(),
        };
        if let Some(id) = item.row {
            last.insert(id, touch());
        }
        for id in &item.genesis_rows {
            last.insert(*id, touch());
        }
    }
    let mut turns: Option<i64> = None;
    let cards = state
        .rows
        .iter()
        .map(|row| {
            let reason = state.move_reason(row.id).map(str::to_owned);
            let claim = Claim::of(row).filter(|c| c.lease.is_some()).map(|c| {
                if let Some(t) = seen.turns(&c) {
                    turns = Some(turns.map_or(t, |n| n.min(t)));
                }
                seen.judged(&c)
            });
            card(row.clone(), reason, last.remove(&row.id), claim)
        })
        .collect::<Vec<_>>();
    let seats = seats(&cards, &log, &seen.signs);
    let archives = queue
        .epoch()
        .map(|e| {
            e.archives
                .iter()
                .map(|a| ArchiveRef {
                    epoch: a.epoch,
                    file: a.file.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let archived_rows = state
        .archived()
        .iter()
        .map(|(first, last, _)| last.saturating_sub(*first) + 1)
        .sum();
    Snapshot {
        revision: state.revision,
        durable,
        cards,
        log,
        seats,
        archives,
        archived_rows,
        issues,
        replicated: None,
        turns,
    }
}

fn card(
    row: Row,
    reason: Option<String>,
    last: Option<Touch>,
    claim: Option<mosaic_queue_core::signs::Judged>,
) -> Card {
    Card {
        review: ReviewState::of(&row),
        claim,
        reason,
        last,
        row,
    }
}

fn log_item(e: &Entry) -> LogItem {
    let mut genesis_rows: Vec<u64> = match &e.args {
        mosaic_queue_core::Args::Genesis(g) => g.rows.iter().map(|r| r.id).collect(),
        _ => Vec::new(),
    };
    genesis_rows.sort_unstable();
    LogItem {
        rev: e.rev,
        op: e.op.clone(),
        verb: e.verb.as_str().to_owned(),
        by: e.by.clone(),
        at: e.at.clone(),
        receipt: e.receipt.clone(),
        row: entry_row(&e.args),
        genesis_rows,
    }
}

/// Every name the queue knows (owners, reviewers, actors), each with its newest entry.
fn seats(cards: &[Card], log: &[LogItem], signs: &Signs) -> Vec<Seat> {
    let mut names: std::collections::BTreeMap<&str, Option<Touch>> = Default::default();
    for c in cards {
        for name in c.row.owner.iter().chain(&c.row.reviewers) {
            names.entry(name).or_default();
        }
    }
    for item in log {
        names.insert(
            &item.by,
            Some(Touch {
                rev: item.rev,
                at: item.at.clone(),
            }),
        );
    }
    names
        .into_iter()
        .map(|(name, last)| Seat {
            name: name.to_owned(),
            last,
            heartbeat: match signs.heartbeat(name) {
                Heartbeat::At(at) => Some(at),
                Heartbeat::Unknown => None,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn links(vars: &[(&str, &str)]) -> Result<Option<IssueLinks>, Failure> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        issue_links(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn issues_link_only_to_a_checked_gitea_and_never_carry_a_credential() {
        assert_eq!(links(&[]).unwrap(), None);
        let ok = links(&[
            ("MOSAIC_GITEA_URL", "https://git.example.org/"),
            ("MOSAIC_GITEA_REPO", "mosaic/stack"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            ok.href(12),
            "https://git.example.org/mosaic/stack/issues/12"
        );
        let refused = |vars: &[(&str, &str)]| {
            let f = links(vars).unwrap_err();
            assert_eq!(f.exit, crate::exit::Exit::Refused);
            f.message
        };
        let with_user = refused(&[
            ("MOSAIC_GITEA_URL", "https://tok:secret@git.example.org"),
            ("MOSAIC_GITEA_REPO", "mosaic/stack"),
        ]);
        assert!(!with_user.contains("secret"), "{with_user}");
        assert!(with_user.contains("contains credentials"), "{with_user}");
        refused(&[
            ("MOSAIC_GITEA_URL", "javascript:alert(1)"),
            ("MOSAIC_GITEA_REPO", "mosaic/stack"),
        ]);
        refused(&[
            ("MOSAIC_GITEA_URL", "https://git.example.org"),
            ("MOSAIC_GITEA_REPO", "mosaic/\"><script>"),
        ]);
        refused(&[("MOSAIC_GITEA_URL", "https://git.example.org")]);
        refused(&[("MOSAIC_GITEA_REPO", "mosaic/stack")]);
    }
}
