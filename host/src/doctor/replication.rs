//! Doctor's look at replication: a host whose queue was adopted elsewhere (the fence), with the
//! ops it wrote after its last push for a person to carry over; under `replication required`,
//! a follower that is not running or is behind, with the command that starts it; and a record
//! of the follower that cannot be read.

use mosaic_queue_core::{Queue, ReplicationMode};

use super::{Finding, Kind};
use crate::checkout::Paths;
use crate::io::Io;
use crate::store::adopted::{self, Fence};
use crate::store::follower::{self, Follower};
use crate::store::replicated::{self, Record};

/// The most ops a fenced host's finding lists one by one.
const LISTED: usize = 50;

/// Adds the replication findings for `queue` (the checkout's, verified), whose newest durable
/// revision is `durable`.
pub(super) fn inspect(
    io: &dyn Io,
    paths: &Paths,
    queue: &Queue,
    durable: u64,
    out: &mut Vec<Finding>,
) {
    match adopted::read(io, paths) {
        Fence::None => {}
        Fence::Adopted(a) => {
            let past: Vec<String> = queue
                .file()
                .log
                .iter()
                .filter(|e| e.rev > a.last_pushed)
                .map(|e| format!("rev {} op {} by {}: {}", e.rev, e.op, e.by, e.receipt))
                .collect();
            let listed = if past.is_empty() {
                String::from("this host wrote nothing after its last push")
            } else {
                let more = past.len().saturating_sub(LISTED);
                let mut text = format!(
                    "the ops this host wrote after its last push (rev {}), which the adopted queue does not hold; carry each over by hand in {} under a new op id, or tell its seat: {}",
                    a.last_pushed,
                    a.root,
                    past[..past.len().min(LISTED)].join("; ")
                );
                if more > 0 {
                    text.push_str(&format!("; and {more} more (`mosaic-queue log`)"));
                }
                text
            };
            out.push(Finding::person(
                Kind::AdoptedElsewhere,
                format!(
                    "this queue was adopted at {}:{} (rev {}, commit {} on {} {}, by {} at {}): every change here is refused; {listed}",
                    a.host,
                    a.root,
                    a.revision,
                    adopted::short(&a.commit),
                    a.remote,
                    a.reference,
                    a.by,
                    a.at
                ),
            ));
            return;
        }
        Fence::Unreadable(why) => {
            out.push(Finding::person(
                Kind::AdoptedElsewhere,
                format!(
                    "{why}: every change here is refused until a person looks (docs/replication.md)"
                ),
            ));
            return;
        }
        Fence::Failed(e) => {
            out.push(Finding::person(
                Kind::AdoptedElsewhere,
                format!(
                    "cannot read {} ({e}): every change here fails until it can be read",
                    adopted::path(paths).display()
                ),
            ));
            return;
        }
    }
    let record = replicated::read(io, paths);
    if let Record::Unreadable(why) = &record {
        out.push(Finding::act(
            Kind::RecordUnreadable,
            format!("{why}: no change counts as replicated while it stands; the follower writes it again on its next push"),
            format!("rm {}", rel(paths, &replicated::path(paths))),
        ));
    }
    if queue.state().replication() != ReplicationMode::Required {
        return;
    }
    let start = match record.read_ok() {
        Some(r) => format!(
            "mosaic-queue follow --to {} --ref {}",
            r.remote, r.reference
        ),
        None => String::from("mosaic-queue follow --to REMOTE"),
    };
    let pushed = record.revision();
    match follower::probe(paths) {
        Follower::Running if pushed >= durable => {}
        Follower::Running => out.push(Finding::act(
            Kind::FollowerBehind,
            format!(
                "under replication required, the follower has pushed rev {pushed} of rev {durable}: changes wait for it, and exit 3 past --replication-timeout; its lines say why a push fails; if it is stuck, stop it and start it again"
            ),
            start,
        )),
        Follower::NotRunning => out.push(Finding::act(
            Kind::FollowerNotRunning,
            format!(
                "under replication required, no follower runs here (it pushed rev {pushed} of rev {durable}): every change exits 3 until it is started"
            ),
            start,
        )),
        Follower::Unknown(why) => out.push(Finding::act(
            Kind::FollowerNotRunning,
            format!(
                "under replication required, whether a follower runs cannot be told ({why}); changes wait for one"
            ),
            start,
        )),
    }
}

fn rel(paths: &Paths, path: &std::path::Path) -> String {
    super::rel(paths, path)
}
