//! Every number a command or an entry carries, held to the limit the queue.json reader
//! enforces (2^53-1). A larger one would be written, acknowledged, and then refused by every
//! later read; checked here, it is refused before anything is written, on every face.

use super::command::Command;
use crate::entry::{Args, Evidence, MapRow, SetValue};
use crate::error::VerbError;
use crate::limits::MAX_SAFE_INTEGER;
use crate::model::Witness;

/// Refuses `value` when queue.json could not hold it.
pub(crate) fn check(field: &'static str, value: u64) -> Result<(), VerbError> {
    if value > MAX_SAFE_INTEGER {
        return Err(VerbError::NumberTooLarge { field, value });
    }
    Ok(())
}

fn each(field: &'static str, values: &[u64]) -> Result<(), VerbError> {
    values.iter().try_for_each(|&v| check(field, v))
}

fn evidence(e: &Option<Evidence>) -> Result<(), VerbError> {
    match e {
        Some(e) => check("evidence comment", e.comment),
        None => Ok(()),
    }
}

fn witness(w: &Option<Witness>) -> Result<(), VerbError> {
    match w {
        Some(w) => check("witness revision", w.revision),
        None => Ok(()),
    }
}

fn map_rows(rows: &[MapRow]) -> Result<(), VerbError> {
    rows.iter().try_for_each(|r| {
        check("row id", r.id)?;
        each("issue", &r.issues)
    })
}

fn set_value(value: &SetValue) -> Result<(), VerbError> {
    match value {
        SetValue::Numbers(n) => each("issue", n),
        SetValue::Text(_) | SetValue::Seats(_) => Ok(()),
    }
}

/// The numbers of a command as a caller gave it.
pub(crate) fn command(cmd: &Command) -> Result<(), VerbError> {
    match cmd {
        Command::Add(n) => {
            each("issue", &n.issues)?;
            each("row id", &n.after)
        }
        Command::Take(_) | Command::LeaseDefault(_) | Command::Replication(_) => Ok(()),
        Command::Adopt(a) => check("revision", a.revision),
        Command::Reclaim(r) => check("row id", r.id),
        Command::Move(m) => {
            check("row id", m.id)?;
            if let Some(i) = m.issue {
                check("issue", i)?;
            }
            evidence(&m.evidence)
        }
        Command::Release(a) | Command::ReviewRequest(a) => check("row id", a.id),
        Command::Assign(a) => check("row id", a.id),
        Command::Note(a) => check("row id", a.id),
        Command::Set(a) => {
            check("row id", a.id)?;
            set_value(&a.value)
        }
        Command::AcceptHistory(a) => witness(&a.old_witness),
        Command::ReviewOutcome(a) => {
            check("row id", a.id)?;
            a.comment.map_or(Ok(()), |c| check("comment id", c))
        }
        Command::ReviewResolve(a) => {
            check("row id", a.id)?;
            check("comment id", a.comment)
        }
        Command::ReviewAbandon(a) => check("row id", a.id),
        Command::ReviewRecord(a) => {
            check("row id", a.id)?;
            check("comment id", a.comment)
        }
    }
}

/// The numbers of an entry's arguments (a write's, or a replayed one's).
pub(crate) fn args(args: &Args) -> Result<(), VerbError> {
    match args {
        Args::Genesis(a) => map_rows(&a.rows),
        Args::Add(a) => {
            check("row id", a.id)?;
            each("issue", &a.issues)?;
            each("row id", &a.after)
        }
        Args::Take(a) => check("row id", a.id),
        Args::Reclaim(a) => check("row id", a.id),
        Args::LeaseDefault(_) | Args::Replication(_) => Ok(()),
        Args::Adopt(a) => check("revision", a.revision),
        // Its numbers are the reader's to bound; the epoch check holds the rest.
        Args::Epoch(_) => Ok(()),
        Args::Archive(a) => {
            check("revision", a.before)?;
            check("entries", a.entries)?;
            check("rows", a.rows)
        }
        Args::Move(m) => {
            check("row id", m.id)?;
            if let Some(i) = m.issue {
                check("issue", i)?;
            }
            evidence(&m.evidence)
        }
        Args::Release(a) | Args::ReviewRequest(a) => check("row id", a.id),
        Args::Assign(a) => check("row id", a.id),
        Args::Note(a) => check("row id", a.id),
        Args::Set(a) => {
            check("row id", a.id)?;
            set_value(&a.value)
        }
        Args::AcceptHistory(a) => {
            witness(&a.old_witness)?;
            check("revision", a.new_revision)
        }
        Args::ReviewOutcome(a) => {
            check("row id", a.id)?;
            a.comment.map_or(Ok(()), |c| check("comment id", c))
        }
        Args::ReviewResolve(a) => {
            check("row id", a.id)?;
            check("comment id", a.comment)
        }
        Args::ReviewAbandon(a) => check("row id", a.id),
        Args::ReviewRecord(a) => {
            check("row id", a.id)?;
            check("comment id", a.comment)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{IdArgs, NoteArgs};

    #[test]
    fn the_limit_is_the_readers() {
        assert_eq!(check("row id", MAX_SAFE_INTEGER), Ok(()));
        assert_eq!(
            check("row id", MAX_SAFE_INTEGER + 1),
            Err(VerbError::NumberTooLarge {
                field: "row id",
                value: 9_007_199_254_740_992
            })
        );
        assert!(args(&Args::Release(IdArgs { id: u64::MAX })).is_err());
        let note = Command::Note(NoteArgs {
            id: 1 << 53,
            text: None,
        });
        assert!(command(&note).is_err());
    }
}
