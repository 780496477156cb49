//! The core's one error as the host ends a command on it, decided here and nowhere else: every
//! core error is invalid data or a change the rules refuse (exit 2) under the core's stable
//! kind, and its line is the core's own. The session, the store and every face take it from
//! here.

pub use mosaic_queue_core::Error as CoreError;

use mosaic_queue_core::VerbError;

use crate::exit::Exit;
use crate::gate;

/// How the host ends a command on a core error, as every host error type does (`exit()`).
pub trait Ending {
    /// Invalid data or a refused change, whichever rule of the core it was: exit 2.
    fn exit(&self) -> Exit;

    /// The one line to print: the core's own, after `refused: ` where a rule refused the
    /// command itself (a verb's or a review's) rather than the data it read.
    fn line(&self) -> String;
}

impl Ending for CoreError {
    fn exit(&self) -> Exit {
        Exit::Refused
    }

    fn line(&self) -> String {
        match self {
            CoreError::Verb(VerbError::MissingCandidate { id }) if gate::confine::confined() => {
                through_gate(*id)
            }
            CoreError::Verb(_) | CoreError::Review(_) => format!("refused: {self}"),
            _ => self.to_string(),
        }
    }
}

/// The missing candidate as a remote seat must give it: the queue host cannot read a file on
/// the seat's machine, so the core's `--candidate FILE|REV` would send it to a refusal.
fn through_gate(id: u64) -> String {
    format!(
        "refused: moving row {id} to in-review needs the manifest's text (--manifest-stdin) or a commit the queue host has (--candidate REV)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mosaic_queue_core::{QueueError, ReplayError, VerbError};

    #[test]
    fn a_refused_command_says_so_and_invalid_data_speaks_for_itself() {
        let verb = CoreError::from(VerbError::NoSuchRow { id: 7 });
        assert_eq!(
            verb.line(),
            "refused: no row 7 in the queue; `mosaic-queue list` shows the rows"
        );
        assert_eq!((verb.exit(), verb.kind()), (Exit::Refused, "no-such-row"));
        let invalid = CoreError::from(QueueError::Replay(ReplayError::EmptyLog));
        assert_eq!(
            invalid.line(),
            "queue.json is invalid: the log is empty; a queue file starts with its genesis entry"
        );
        assert_eq!(
            (invalid.exit(), invalid.kind()),
            (Exit::Refused, "empty-log")
        );
    }

    /// The refusals of a cut queue end as every other: a verb's after `refused: `, invalid
    /// data on its own, exit 2.
    #[test]
    fn the_refusals_of_epochs_are_exit_2() {
        let archived = CoreError::from(VerbError::RowArchived { id: 12, epoch: 1 });
        assert_eq!(
            archived.line(),
            "refused: row 12 is done and archived in docs/plans/archive/epoch-0001.json: `show 12` reads it; a dependency on it is already met"
        );
        assert_eq!(
            (archived.exit(), archived.kind()),
            (Exit::Refused, "row-archived")
        );
        let range = CoreError::from(VerbError::CutRange {
            before: 1,
            low: 2,
            high: 9,
        });
        assert_eq!((range.exit(), range.kind()), (Exit::Refused, "cut-range"));
        let full = CoreError::from(QueueError::Epoch {
            epoch: 2,
            detail: "queue.json names 2 archives but 1 were given".into(),
        });
        assert_eq!(
            full.line(),
            "epoch 2 does not hold: queue.json names 2 archives but 1 were given"
        );
        assert_eq!(
            (full.exit(), full.kind()),
            (Exit::Refused, "epoch-mismatch")
        );
    }
}
