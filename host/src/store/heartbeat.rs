//! Signs of life outside the history: one small file per seat under `.git`, beside the
//! witness, holding the time the seat last showed life. Written atomically, never committed,
//! under no queue lock; read as every file of the tool is read, and anything odd is unknown.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;

use mosaic_queue_core::signs::{Claim, Heartbeat, Signs};
use mosaic_queue_core::{Command, ReclaimCmd, State, TakeCmd, check_timestamp};

use crate::checkout::Paths;
use crate::io::{Io, Kind};

/// The folder of the heartbeats, under `.git` so that no commit ever carries one.
pub const FOLDER: &str = "mosaic-queue.heartbeats";

/// The most seats whose heartbeats one read looks at: a queue holds far fewer claimants, and
/// a bound keeps a hostile queue from turning a read into thousands of opens.
pub const MAX_SEATS: usize = 1_000;

/// `.git/mosaic-queue.heartbeats`.
pub fn folder(paths: &Paths) -> PathBuf {
    paths.git_dir.join(FOLDER)
}

/// `seat`'s heartbeat file. Seat names are `[a-z0-9-]` starting with a letter (the core
/// checks every one the queue holds), so a name never walks out of the folder.
pub fn path(paths: &Paths, seat: &str) -> PathBuf {
    folder(paths).join(seat)
}

/// `seat`'s heartbeat as the file holds it: one timestamp of the log's form, with or without a
/// newline. Missing, unreadable, not a regular file, over its cap or not a timestamp: unknown,
/// never an error, since a sign of life that cannot be read must never stop a verb.
pub fn read(io: &dyn Io, paths: &Paths, seat: &str) -> Heartbeat {
    let Ok(bytes) = io.read(&path(paths, seat), Kind::Heartbeat) else {
        return Heartbeat::Unknown;
    };
    let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    match std::str::from_utf8(text) {
        Ok(at) if check_timestamp(at).is_ok() => Heartbeat::At(at.to_owned()),
        _ => Heartbeat::Unknown,
    }
}

/// The heartbeats of the holders of leased claims in `state` (the only seats whose signs any
/// verb judges), at most `MAX_SEATS` of them.
pub fn signs(io: &dyn Io, paths: &Paths, state: &State) -> Signs {
    let mut holders: Vec<&str> = state
        .rows
        .iter()
        .filter_map(Claim::of)
        .filter(|c| c.lease.is_some())
        .map(|c| c.holder)
        .collect();
    holders.sort_unstable();
    holders.dedup();
    holders.truncate(MAX_SEATS);
    holders
        .into_iter()
        .fold(Signs::none(), |signs, seat| match read(io, paths, seat) {
            Heartbeat::At(at) => signs.with(seat, &at),
            Heartbeat::Unknown => signs,
        })
}

/// Whether `seat` holds a leased claim in `state`: the claims a sign of life renews.
pub fn holds_lease(state: &State, seat: &str) -> bool {
    state
        .rows
        .iter()
        .filter_map(Claim::of)
        .any(|c| c.holder == seat && c.lease.is_some())
}

/// `command` with the signs of life the host read filled in where the caller gave none: a
/// `take` judges every leased claim with its holder's heartbeat, a `reclaim` cites its
/// holder's. Any other command is passed on as it is.
pub fn with_signs<'c>(
    io: &dyn Io,
    paths: &Paths,
    state: &State,
    command: &'c Command,
) -> Cow<'c, Command> {
    match command {
        Command::Take(t) if t.heartbeats.is_empty() && !t.no_reclaim => {
            let heartbeats = signs(io, paths, state);
            Cow::Owned(Command::Take(TakeCmd {
                heartbeats,
                ..t.clone()
            }))
        }
        Command::Reclaim(r) if r.heartbeat.is_none() => {
            let holder = state
                .row(r.id)
                .ok()
                .and_then(Claim::of)
                .map(|c| read(io, paths, c.holder));
            let heartbeat = match holder {
                Some(Heartbeat::At(at)) => Some(at),
                _ => None,
            };
            Cow::Owned(Command::Reclaim(ReclaimCmd {
                heartbeat,
                ..r.clone()
            }))
        }
        _ => Cow::Borrowed(command),
    }
}

/// After a change by `seat` at `at`: its sign of life, which renews every leased claim it
/// holds. Only a seat that holds one is written (a queue without leases gains no file), and
/// a write that fails is dropped: the change is durable and answered already, and a missed
/// heartbeat costs at most a renewal, which the log's own entry on the row stands in for.
pub fn renew(io: &dyn Io, paths: &Paths, state: &State, seat: &str, at: &str) {
    if holds_lease(state, seat) {
        let _ = write(io, paths, seat, at);
    }
}

/// Writes `seat`'s heartbeat `at`: a temp file beside it, then a rename over it, so a reader
/// sees the old time or the new, never half of one. No fsync: a heartbeat a power loss takes
/// back only leaves the older time, which a claim survives if it is within the lease, and
/// costs nothing more than a missed renewal if not; the rename alone is what readers need.
pub fn write(io: &dyn Io, paths: &Paths, seat: &str, at: &str) -> io::Result<()> {
    let dir = folder(paths);
    match io.create_dir(&dir) {
        Ok(()) => {}
        // Whatever is at the name must be the folder itself: a symlink to a directory would
        // send the write elsewhere.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if !io.is_dir(&dir)? {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is not a directory (a symlink or a file is at its name); remove it and run the command again",
                        dir.display()
                    ),
                ));
            }
        }
        Err(e) => return Err(e),
    }
    // A dot name no seat can have, unique to this process: two processes of one seat never
    // write the same temp file, and one a killed process left is replaced.
    let temp = dir.join(format!(".{seat}.{}", std::process::id()));
    let bytes = format!("{at}\n");
    if let Err(e) = io.create_unsynced(&temp, bytes.as_bytes()) {
        if e.kind() != io::ErrorKind::AlreadyExists {
            // A write cut short may have left part of the file: none stays behind.
            let _ = io.remove(&temp);
            return Err(e);
        }
        io.remove(&temp)?;
        io.create_unsynced(&temp, bytes.as_bytes())
            .inspect_err(|_| {
                let _ = io.remove(&temp);
            })?;
    }
    io.rename(&temp, &path(paths, seat)).inspect_err(|_| {
        let _ = io.remove(&temp);
    })
}

#[cfg(test)]
mod tests;
