//! One round of the follower: the newest durable revision read as `wait` reads it (the
//! witness, then queue.json, verified and checked to extend it), the queue's files for it (the
//! table rendered into QUEUE.md's text as `render` would write it, the archives the epoch
//! names), one commit on the last replicated one, one fast-forward push, and the record.

use std::time::{Duration, Instant};

use gix::ObjectId;
use mosaic_queue_core::{Witness, markdown, sha256_hex};

use super::git::{self, Ran, RemoteFailure};
use super::objects::{self, Blobs, QueueFiles, Stamp};
use crate::checkout::Paths;
use crate::io::{Io, Kind};
use crate::store::replicated::{self, Replicated};
use crate::store::{self, Loaded};

/// What the ref held after the last push this follower knows of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    pub revision: u64,
    pub log_digest: String,
    pub commit: ObjectId,
}

/// Where the follower pushes, and how long one remote call may take.
#[derive(Debug, Clone)]
pub struct Target {
    pub remote: String,
    pub reference: String,
    pub deadline: Duration,
}

/// What one round did.
#[derive(Debug)]
pub enum Round {
    /// Nothing durable is newer than the last push (or the file is ahead of its witness, a
    /// write in flight whose witness wakes the next round).
    Nothing,
    /// Pushed: the revision, the commit, git's count of the bytes it sent, and the lag from
    /// the moment this revision was first seen durable.
    Pushed {
        pushed: Pushed,
        sent: u64,
        lag: Duration,
    },
    /// The revision cannot be pushed as it stands (QUEUE.md without its markers, an archive
    /// that does not match its epoch): the line to show; the next durable write tries again.
    Held(String),
}

/// Why the follower stops.
#[derive(Debug)]
pub enum Stop {
    /// The remote did not take the push, or did not answer: retried on the next wake.
    Remote(RemoteFailure),
    /// The ref moved under this follower (another host pushed, or the ref was rewound): the
    /// round cannot go on; `start` looks at the ref again.
    Rejected,
    /// The checkout's queue cannot be read or no longer extends what was replicated.
    Queue(String),
}

/// The follower's state between rounds.
pub struct Follower {
    pub paths: Paths,
    pub target: Target,
    pub repo: gix::Repository,
    pub blobs: Blobs,
    pub last: Option<Pushed>,
    /// When the oldest durable revision not yet pushed was first seen.
    pub pending_since: Option<Instant>,
}

impl Follower {
    /// Pushes the newest durable revision, if it is newer than the last push.
    pub fn round(&mut self, io: &dyn Io) -> Result<Round, Stop> {
        let Some(loaded) = durable(io, &self.paths)? else {
            return Ok(Round::Nothing);
        };
        let revision = loaded.queue.revision();
        if self.last.as_ref().is_some_and(|l| l.revision >= revision) {
            self.pending_since = None;
            return Ok(Round::Nothing);
        }
        let seen = *self.pending_since.get_or_insert_with(Instant::now);
        if let Some(last) = &self.last {
            extends(io, &self.paths, &loaded, last)?;
        }
        let files = match self.files(io, &loaded) {
            Ok(files) => files,
            Err(why) => return Ok(Round::Held(why)),
        };
        let witness = loaded
            .witness
            .as_ref()
            .expect("a durable file has its witness");
        let stamp = Stamp {
            revision,
            log_digest: witness.log_digest.clone(),
            file_sha: loaded.sha.clone(),
            root: loaded.queue.file().canonical_root.clone(),
        };
        let parent = self.last.as_ref().map(|l| l.commit);
        let commit = objects::commit(&self.repo, &files, &self.blobs, &stamp, parent)
            .map_err(Stop::Queue)?;
        io.step("follow-committed");
        let sent = self.push(commit)?;
        io.step("follow-pushed");
        let pushed = Pushed {
            revision,
            log_digest: stamp.log_digest,
            commit,
        };
        self.record(io, &pushed)?;
        self.last = Some(pushed.clone());
        self.pending_since = None;
        Ok(Round::Pushed {
            pushed,
            sent,
            lag: seen.elapsed(),
        })
    }

    /// The queue's files at `loaded`'s revision: its bytes, QUEUE.md with the table rendered
    /// for it, and the archives its epoch names (each read once, checked against its SHA-256).
    fn files(&mut self, io: &dyn Io, loaded: &Loaded) -> Result<QueueFiles, String> {
        let md = io
            .read(&self.paths.queue_md, Kind::QueueMd)
            .map_err(|e| format!("cannot read QUEUE.md: {e}"))?;
        let md = String::from_utf8(md).map_err(|_| String::from("QUEUE.md is not UTF-8"))?;
        let md = markdown::splice(&md, &loaded.queue.render_body())
            .map_err(|e| format!("QUEUE.md cannot hold the table: {e}"))?;
        let mut archives = Vec::new();
        for info in loaded.queue.epoch().map_or(&[][..], |e| &e.archives[..]) {
            let name = info
                .file
                .strip_prefix("docs/plans/archive/")
                .unwrap_or(&info.file)
                .to_owned();
            if !self.blobs.known(&info.sha) {
                let bytes = io
                    .read(&self.paths.root.join(&info.file), Kind::Archive)
                    .map_err(|e| format!("cannot read {}: {e}", info.file))?;
                if sha256_hex(&bytes) != info.sha {
                    return Err(format!(
                        "{} does not hold the bytes its epoch names (SHA-256 {}); restore it from git",
                        info.file, info.sha
                    ));
                }
                objects::keep_archive(&self.repo, &mut self.blobs, &info.sha, &bytes)?;
            }
            archives.push((name, info.sha.clone()));
        }
        Ok(QueueFiles {
            queue_json: loaded.bytes.clone(),
            queue_md: md.into_bytes(),
            archives,
        })
    }

    /// `git push REMOTE COMMIT:REF`, fast-forward only; git's count of the bytes it sent.
    fn push(&self, commit: ObjectId) -> Result<u64, Stop> {
        let spec = format!("{commit}:{}", self.target.reference);
        let args = [
            "push",
            "--porcelain",
            "--progress",
            "--no-verify",
            &self.target.remote,
            &spec,
        ];
        match git::run(&self.paths.root, &args, self.target.deadline) {
            Ran::Exited {
                status,
                stdout,
                stderr,
            } => {
                let out = String::from_utf8_lossy(&stdout);
                if status.success() {
                    return Ok(sent_bytes(&stderr));
                }
                if rejected(&out) {
                    return Err(Stop::Rejected);
                }
                Err(Stop::Remote(RemoteFailure::Refused(format!(
                    "git push failed: {}",
                    git::reason(&stderr)
                ))))
            }
            other => other.ok("push").map(|_| 0).map_err(Stop::Remote),
        }
    }

    /// Writes the record of `pushed` (what a change under `replication required` waits for).
    pub fn record(&self, io: &dyn Io, pushed: &Pushed) -> Result<(), Stop> {
        let record = Replicated {
            revision: pushed.revision,
            log_digest: pushed.log_digest.clone(),
            commit: pushed.commit.to_string(),
            remote: self.target.remote.clone(),
            reference: self.target.reference.clone(),
            at: crate::clock::now(),
        };
        replicated::write(io, &self.paths, &record).map_err(|e| {
            Stop::Queue(format!(
                "pushed rev {} but cannot write {}: {e}",
                pushed.revision,
                replicated::path(&self.paths).display()
            ))
        })
    }
}

/// The checkout's queue when it is durable (the file its witness vouches for), else `None`.
fn durable(io: &dyn Io, paths: &Paths) -> Result<Option<Loaded>, Stop> {
    let loaded = store::load(io, paths).map_err(|e| Stop::Queue(e.to_string()))?;
    if loaded.witness.is_none() || loaded.ahead_of_witness() {
        return Ok(None);
    }
    Ok(Some(loaded))
}

/// Whether the queue still extends the revision last pushed: a queue whose history was
/// replaced since (accept-history after a loss) must not be pushed on top of it.
fn extends(io: &dyn Io, paths: &Paths, loaded: &Loaded, last: &Pushed) -> Result<(), Stop> {
    let witness = Witness {
        revision: last.revision,
        log_digest: last.log_digest.clone(),
        file_sha: String::new(),
        at: String::new(),
    };
    store::cut::history::check_extends(io, paths, &loaded.queue, &loaded.sha, &witness).map_err(
        |e| {
            Stop::Queue(format!(
                "the queue here no longer extends rev {} as it was replicated ({e}); see docs/replication.md",
                last.revision
            ))
        },
    )
}

/// Whether `git push --porcelain` says the ref was not fast-forwarded.
fn rejected(porcelain: &str) -> bool {
    porcelain.lines().any(|l| {
        l.starts_with('!') && (l.contains("non-fast-forward") || l.contains("fetch first"))
    })
}

/// git's figure for the bytes a push wrote (`Writing objects: 100% (3/3), 1.17 KiB | ...`),
/// in bytes (git rounds KiB and MiB to two places); 0 when it wrote none.
pub fn sent_bytes(stderr: &str) -> u64 {
    let Some(line) = stderr
        .split(['\r', '\n'])
        .rfind(|l| l.contains("Writing objects: 100%"))
    else {
        return 0;
    };
    let Some(amount) = line.split(", ").nth(1) else {
        return 0;
    };
    let amount = amount.split(" | ").next().unwrap_or(amount);
    let amount = amount.trim_end_matches(", done.").trim();
    let Some((number, unit)) = amount.split_once(' ') else {
        return 0;
    };
    let Ok(number) = number.parse::<f64>() else {
        return 0;
    };
    let scale = match unit.trim_end_matches(',') {
        "bytes" | "byte" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return 0,
    };
    (number * scale).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_sent_are_gits_figure() {
        let progress = "Enumerating objects: 9, done.\rCounting objects: 100% (9/9), done.\nWriting objects:  50% (2/4)\rWriting objects: 100% (4/4), 1.17 KiB | 1.17 MiB/s, done.\nTotal 4 (delta 0)";
        assert_eq!(sent_bytes(progress), 1198);
        assert_eq!(
            sent_bytes("Writing objects: 100% (3/3), 312 bytes | 312.00 KiB/s, done."),
            312
        );
        assert_eq!(sent_bytes("Everything up-to-date"), 0);
    }

    #[test]
    fn only_a_refused_fast_forward_is_a_rejection() {
        assert!(rejected(
            "To ../bare\n!\tabc:refs/mosaic-queue/live\t[rejected] (non-fast-forward)\nDone"
        ));
        assert!(rejected("!\tabc:refs/x\t[rejected] (fetch first)"));
        assert!(!rejected(
            "!\tabc:refs/x\t[remote rejected] (hook declined)"
        ));
        assert!(!rejected(" \tabc:refs/x\t1234..5678"));
    }
}
