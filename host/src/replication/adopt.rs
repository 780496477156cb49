//! `adopt --from REMOTE [--ref REF]` in a standby's checkout of the same repository: the ref
//! fetched and verified whole (one line of commits, each one's files the queue's and only
//! those, each queue.json verifying, its table current, its archives by SHA-256, the message
//! true to the file, each revision extending the one before; the head `verify --full`; the
//! first commit's history extending the queue the standby's branch holds), then one `adopt`
//! entry on the head pushed to the ref at once, fast-forward, and only then the files
//! installed here with their witness. A push that loses (another standby adopted, or the old
//! host pushed meanwhile) installs nothing. The retry of a killed adopt finds its own entry on
//! the ref and installs it.

use gix::ObjectId;
use mosaic_queue_core::{
    AdoptArgs, BodyStatus, Command, Outcome, Queue, QueueFile, ReplicationMode, Witness, markdown,
    parse_queue, sha256_hex, verify_full,
};

use super::git::{self, Ran};
use super::objects::{self, Blobs, QueueFiles, Stamp};
use super::refline::{self, Link, TreeFiles};
use super::round::Target;
use super::start::{self, MAX_LINE};
use crate::checkout::Paths;
use crate::io::{Io, Kind, QUEUE_JSON_CAP, RealIo};
use crate::reply::{Failure, Replied, Reply};
use crate::store::replicated::{self, Replicated};
use crate::store::session::{self, Session};
use crate::store::world::{GitRepository, Repository};
use crate::store::{self, adopted};

/// `adopt` as op `op` by `by` (already resolved: the lead, jason or sage).
pub fn adopt(target: &Target, op: &str, by: &str, reply: &mut dyn Reply) -> Replied {
    if !mosaic_queue_core::is_lead_or_privileged(by) {
        return Err(Failure::refused(format!(
            "{by} may not adopt the queue: the lead, jason or sage only"
        ))
        .kind("not-allowed"));
    }
    let paths = session::locate()?;
    session::check_filesystem(&paths)?;
    let here = paths.root.to_string_lossy().into_owned();
    let session = Session::begin(&paths, Some(op), "adopt")?;
    let answer = adopt_locked(&paths, target, op, by, &here, reply);
    session.release_after_answer();
    answer
}

fn adopt_locked(
    paths: &Paths,
    target: &Target,
    op: &str,
    by: &str,
    here: &str,
    reply: &mut dyn Reply,
) -> Replied {
    let repo = gix::open_opts(&paths.git_dir, gix::open::Options::isolated())
        .map_err(|e| Failure::failed(format!("cannot open the repository: {e}")))?;
    let head = start::remote_head(paths, target)
        .map_err(remote)?
        .ok_or_else(|| {
            Failure::refused(format!(
                "{} {} does not exist: nothing was replicated there to adopt; check --from and --ref",
                target.remote, target.reference
            ))
            .kind("no-ref")
        })?;
    start::fetch(&repo, paths, target, head).map_err(remote)?;
    let line = refline::line(&repo, head, None, MAX_LINE).map_err(bad_ref)?;
    let verified = verify_line(&repo, &line).map_err(bad_ref)?;
    let top = verified.last().expect("a ref has a head commit");
    if let Some(done) = own_adopt(&top.files.queue, op, here) {
        // A killed adopt pushed its entry and died before the files were here: install them.
        install(paths, &top.files, &top.link.id, target)?;
        return reply.receipt(done, true);
    }
    branch_is_a_prefix(paths, &top.files)?;
    working_file_is_a_prefix(paths, &top.files)?;
    let stamp = top
        .link
        .stamp
        .as_ref()
        .map_err(|why| bad_ref(why.clone()))?;
    let mut queue = top.files.queue.clone();
    let at = crate::clock::now();
    let command = Command::Adopt(AdoptArgs {
        root: here.to_owned(),
        host: host_name(),
        from: stamp.root.clone(),
        revision: stamp.revision,
        commit: head.to_string(),
    });
    match queue.execute(&command, op, by, &at)? {
        Outcome::Applied { .. } => {}
        // The op is in the ref's history already, as another command: the core's refusal
        // would have said so; a recorded adopt of another root is no adopt of this one.
        _ => {
            return Err(Failure::refused(format!(
                "op {op} is already in the replicated log; adopt with a new op id"
            ))
            .kind("op-reused"));
        }
    }
    let files = adopted_files(&top.files, &queue)?;
    let mut blobs = Blobs::default();
    for (_, bytes) in &top.files.archives {
        objects::keep_archive(&repo, &mut blobs, &sha256_hex(bytes), bytes)
            .map_err(Failure::failed)?;
    }
    let witness = queue.witness(sha256_hex(&files.queue_json), at.clone());
    let new_stamp = Stamp {
        revision: queue.revision(),
        log_digest: witness.log_digest.clone(),
        file_sha: witness.file_sha.clone(),
        root: here.to_owned(),
    };
    let commit =
        objects::commit(&repo, &files, &blobs, &new_stamp, Some(head)).map_err(Failure::failed)?;
    push(paths, target, commit, head)?;
    RealIo.step("adopt-pushed");
    let installed = TreeFiles {
        queue_json: files.queue_json.clone(),
        queue: queue.clone(),
        queue_md: files.queue_md.clone(),
        archives: top.files.archives.clone(),
    };
    install(paths, &installed, &commit, target)?;
    let receipt = reply.receipt_of(&queue, op, false);
    receipt?;
    if !reply.documents() {
        reply.text(&said(target, stamp, &top.files.queue))?;
    }
    Ok(())
}

/// A verified commit of the line.
struct Verified {
    link: Link,
    files: TreeFiles,
}

/// Every commit of `line` (newest first) verified, oldest first: its files, its message against
/// its queue, its table current, and each revision extending the one before it. The head is
/// also held to `verify --full` (every archive recomputed).
fn verify_line(repo: &gix::Repository, line: &[Link]) -> Result<Vec<Verified>, String> {
    let mut out: Vec<Verified> = Vec::with_capacity(line.len());
    for link in line.iter().rev() {
        let short = link.id.to_hex_with_len(12).to_string();
        let stamp = link.stamp.as_ref().map_err(Clone::clone)?;
        let files =
            refline::files(repo, link.tree).map_err(|why| format!("commit {short}: {why}"))?;
        let queue = &files.queue;
        let sha = sha256_hex(&files.queue_json);
        if queue.revision() != stamp.revision
            || queue.file().canonical_root != stamp.root
            || sha != stamp.file_sha
            || queue.witness(sha.clone(), String::new()).log_digest != stamp.log_digest
        {
            return Err(format!(
                "commit {short}'s message does not tell the truth about its queue.json (rev {}, root {}); the ref was written by hand",
                queue.revision(),
                queue.file().canonical_root
            ));
        }
        let md = String::from_utf8_lossy(&files.queue_md);
        let current = markdown::body(&md)
            .map(|body| queue.body_status(body) == BodyStatus::Current)
            .unwrap_or(false);
        if !current {
            return Err(format!(
                "commit {short}'s QUEUE.md does not hold its queue's table"
            ));
        }
        if let Some(prev) = out.last() {
            let before = prev.link.stamp.as_ref().map_err(Clone::clone)?;
            extends(&files, &sha, before).map_err(|why| {
                format!(
                    "commit {short} does not extend the commit before it (rev {}): {why}",
                    before.revision
                )
            })?;
        }
        out.push(Verified {
            link: link.clone(),
            files,
        });
    }
    let top = out.last().ok_or("the ref holds no commit")?;
    let archives: Vec<&[u8]> = top.files.archives.iter().map(|(_, b)| &b[..]).collect();
    verify_full(&archives, &top.files.queue_json)
        .map_err(|e| format!("the ref's head does not pass verify --full: {e}"))?;
    Ok(out)
}

/// Whether `files`' queue extends the revision `before` names (through its archives when that
/// revision is older than its epoch).
fn extends(files: &TreeFiles, sha: &str, before: &Stamp) -> Result<(), String> {
    let witness = Witness {
        revision: before.revision,
        log_digest: before.log_digest.clone(),
        file_sha: before.file_sha.clone(),
        at: String::new(),
    };
    let queue = &files.queue;
    match queue.check_extends(sha, &witness) {
        Ok(()) => Ok(()),
        Err(mosaic_queue_core::WitnessError::BeforeEpoch { .. }) => {
            let parsed = archives_of(files)?;
            let borrowed: Vec<(u32, &QueueFile)> = parsed.iter().map(|(k, f)| (*k, f)).collect();
            queue
                .check_extends_archived(sha, &witness, &borrowed)
                .map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The archives of `files`, parsed, by epoch.
fn archives_of(files: &TreeFiles) -> Result<Vec<(u32, QueueFile)>, String> {
    let infos = files.queue.epoch().map_or(&[][..], |e| &e.archives[..]);
    infos
        .iter()
        .zip(&files.archives)
        .map(|(info, (_, bytes))| {
            parse_queue(bytes)
                .map(|f| (info.epoch, f))
                .map_err(|e| format!("{} does not parse: {e}", info.file))
        })
        .collect()
}

/// The entry of a killed adopt of this checkout by `op`, when the ref's head holds it.
fn own_adopt<'q>(queue: &'q Queue, op: &str, here: &str) -> Option<&'q mosaic_queue_core::Entry> {
    queue
        .entry_for_op(op)
        .filter(|e| matches!(&e.args, mosaic_queue_core::Args::Adopt(a) if a.root == here))
}

/// The standby's branch holds a queue.json (the lead's last `commit`) whose history the ref's
/// head extends: the same queue, the same genesis, that log a prefix of the ref's.
fn branch_is_a_prefix(paths: &Paths, files: &TreeFiles) -> Result<(), Failure> {
    let head = &files.queue;
    let branch = GitRepository.head_branch(paths).ok_or_else(|| {
        Failure::refused("HEAD names no branch; check out the queue's branch first")
            .kind("wrong-branch")
    })?;
    let genesis = head.state().branch.clone().unwrap_or_default();
    if branch != genesis {
        return Err(Failure::refused(format!(
            "HEAD is on {branch}, not the queue's branch {genesis}; check out {genesis} first"
        ))
        .kind("wrong-branch"));
    }
    let bytes = crate::git::blob_within(&paths.root, "HEAD:docs/plans/queue.json", QUEUE_JSON_CAP)
        .map_err(|_| {
            Failure::refused(
                "the branch holds no docs/plans/queue.json: adopt runs in a checkout of the queue's repository with its genesis committed; pull the branch first",
            )
            .kind("not-this-queue")
        })?;
    let committed = Queue::verify(&bytes).map_err(|e| {
        Failure::refused(format!(
            "the branch's docs/plans/queue.json does not verify ({e}); restore the branch first"
        ))
    })?;
    let sha = sha256_hex(&bytes);
    let witness = committed.witness(sha, String::new());
    if !prefix_of(files, &witness) {
        return Err(Failure::refused(format!(
            "the ref's queue does not extend the one this branch holds (rev {}): it is another queue, or the ref is behind the branch; adopt would lose revisions, so nothing was changed",
            committed.revision()
        ))
        .kind("not-this-queue"));
    }
    Ok(())
}

/// The working queue.json here, if there is one, must be a prefix of the ref's head too (a
/// standby that wrote revisions of its own would lose them).
fn working_file_is_a_prefix(paths: &Paths, head: &TreeFiles) -> Result<(), Failure> {
    let Ok(bytes) = RealIo.read(&paths.queue_json, Kind::QueueJson) else {
        return Ok(());
    };
    let Ok(here) = Queue::verify(&bytes) else {
        return Err(Failure::refused(
            "docs/plans/queue.json here does not verify; restore it from git (`git checkout -- docs/plans/queue.json`) before adopting",
        ));
    };
    let witness = here.witness(sha256_hex(&bytes), String::new());
    if !prefix_of(head, &witness) {
        return Err(Failure::refused(format!(
            "docs/plans/queue.json here holds rev {} that the ref's head does not extend: adopt would lose it; see docs/replication.md",
            here.revision()
        ))
        .kind("not-this-queue"));
    }
    Ok(())
}

/// Whether the ref's head `files` extends `witness`: through its archives when the witness is
/// older than its epoch; at the same revision the file must be the one witnessed.
fn prefix_of(files: &TreeFiles, witness: &Witness) -> bool {
    let sha = sha256_hex(&files.queue_json);
    let stamp = Stamp {
        revision: witness.revision,
        log_digest: witness.log_digest.clone(),
        file_sha: witness.file_sha.clone(),
        root: String::new(),
    };
    extends(files, &sha, &stamp).is_ok()
}

/// The files of the adopted queue: its bytes, and the head's QUEUE.md with its table.
fn adopted_files(head: &TreeFiles, queue: &Queue) -> Result<QueueFiles, Failure> {
    let md = String::from_utf8_lossy(&head.queue_md);
    let md = markdown::splice(&md, &queue.render_body())
        .map_err(|e| Failure::failed(format!("QUEUE.md cannot hold the table: {e}")))?;
    Ok(QueueFiles {
        queue_json: queue.to_bytes(),
        queue_md: md.into_bytes(),
        archives: head
            .archives
            .iter()
            .map(|(path, bytes)| {
                let name = path.strip_prefix("docs/plans/archive/").unwrap_or(path);
                (name.to_owned(), sha256_hex(bytes))
            })
            .collect(),
    })
}

/// Pushes the adopt's commit on `head`, fast-forward only: exactly one of two standbys wins.
fn push(paths: &Paths, target: &Target, commit: ObjectId, head: ObjectId) -> Result<(), Failure> {
    let spec = format!("{commit}:{}", target.reference);
    let args = ["push", "--porcelain", "--no-verify", &target.remote, &spec];
    match git::run(&paths.root, &args, target.deadline) {
        Ran::Exited { status, .. } if status.success() => Ok(()),
        Ran::Exited { stdout, stderr, .. } => {
            let out = String::from_utf8_lossy(&stdout);
            if out
                .lines()
                .any(|l| l.starts_with('!') && l.contains("[rejected]"))
            {
                return Err(Failure::refused(format!(
                    "{} {} moved while adopting (it no longer ends at commit {}): another standby adopted first, or the old host is still pushing; nothing was installed here; look at the ref (`git ls-remote {} {}`) before adopting again",
                    target.remote,
                    target.reference,
                    head.to_hex_with_len(12),
                    target.remote,
                    target.reference
                ))
                .kind("adopted-elsewhere"));
            }
            Err(remote(super::git::RemoteFailure::Refused(format!(
                "git push failed: {}",
                git::one_line(&stderr)
            ))))
        }
        other => other.ok("push").map(drop).map_err(remote),
    }
}

/// Installs `files` here: the archives, queue.json, the witness for it, QUEUE.md, the record of
/// what the ref holds, and the fence removed (this checkout holds the queue now).
fn install(paths: &Paths, files: &TreeFiles, commit: &ObjectId, target: &Target) -> Replied {
    let io = &RealIo;
    let at = crate::clock::now();
    let witness = store::install(
        io,
        paths,
        &files.queue,
        &files.queue_json,
        &files.queue_md,
        &files.archives,
        &at,
    )?;
    let record = Replicated {
        revision: files.queue.revision(),
        log_digest: witness.log_digest,
        commit: commit.to_string(),
        remote: target.remote.clone(),
        reference: target.reference.clone(),
        at,
    };
    replicated::write(io, paths, &record)
        .map_err(|e| Failure::uncertain(format!("the queue is adopted here, but {} cannot be written ({e}); start `mosaic-queue follow`, which writes it again", replicated::path(paths).display())))?;
    adopted::remove(io, paths).map_err(|e| {
        Failure::uncertain(format!(
            "the queue is adopted here, but the old fence {} cannot be removed ({e}); remove it by hand",
            adopted::path(paths).display()
        ))
    })?;
    io.step("adopt-installed");
    Ok(())
}

/// What adopt says after its receipt: what it took over, and what the old host had
/// acknowledged as far as the ref knows.
fn said(target: &Target, stamp: &Stamp, head: &Queue) -> String {
    let acked = match head.state().replication() {
        ReplicationMode::Required => format!(
            "under replication required it acknowledged nothing past rev {}",
            stamp.revision
        ),
        ReplicationMode::Off => format!(
            "under replication off it may have acknowledged revisions past rev {} that never reached the ref: run `mosaic-queue doctor` there when it is back",
            stamp.revision
        ),
    };
    format!(
        "adopted rev {} of {} from {} {}; the old host's last push was rev {}, and {acked}\n",
        stamp.revision, stamp.root, target.remote, target.reference, stamp.revision
    )
}

/// This machine's name as the kernel gives it (`uname -n`), for the adopt entry.
fn host_name() -> String {
    let name = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    if name.is_empty() {
        String::from("unknown")
    } else {
        name
    }
}

fn remote(failure: super::git::RemoteFailure) -> Failure {
    let line = format!("{failure}: nothing was adopted; check the remote and run adopt again");
    match failure {
        super::git::RemoteFailure::Hung(_) => Failure::uncertain(line),
        _ => Failure::failed(line),
    }
    .kind("remote")
}

fn bad_ref(why: String) -> Failure {
    Failure::refused(format!(
        "the ref cannot be adopted: {why}; nothing was changed here"
    ))
    .kind("ref-invalid")
}
