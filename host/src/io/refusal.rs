//! Why a file was not read (`Refusal`): a symlink, not a regular file, or over its kind's
//! cap. It travels inside the `io::Error` a read returns, and `refusal` finds it again.

use std::io;
use std::path::PathBuf;

use super::kind::{Kind, size_text};

/// Why a file was not read: it is not a plain file of a sane size. Carried inside the
/// `io::Error` that `Io::read` returns; `refusal` finds it again.
#[derive(Debug)]
pub enum Refusal {
    Symlink {
        path: PathBuf,
        kind: Kind,
    },
    NotRegular {
        path: PathBuf,
        kind: Kind,
        what: &'static str,
    },
    TooLarge {
        path: PathBuf,
        kind: Kind,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = match self {
            Refusal::Symlink { path, .. }
            | Refusal::NotRegular { path, .. }
            | Refusal::TooLarge { path, .. } => path,
        };
        write!(
            f,
            "{}{} {}",
            self.kind().prefix(),
            path.display(),
            self.reason()
        )
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    pub fn kind(&self) -> Kind {
        match self {
            Refusal::Symlink { kind, .. }
            | Refusal::NotRegular { kind, .. }
            | Refusal::TooLarge { kind, .. } => *kind,
        }
    }

    /// What is wrong with the file, without its path: "is a symlink; ...".
    pub fn reason(&self) -> String {
        match self {
            Refusal::Symlink { kind, .. } => {
                format!(
                    "is a symlink; {} must be a regular file, not a link",
                    kind.noun()
                )
            }
            Refusal::NotRegular { what, .. } => format!("is {what}, not a regular file"),
            Refusal::TooLarge { kind, .. } => format!(
                "is larger than the {} cap for {}",
                size_text(kind.cap()),
                kind.noun()
            ),
        }
    }

    /// The stable kind `--json` prints for it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Refusal::Symlink { .. } => "file-is-symlink",
            Refusal::NotRegular { .. } => "file-not-regular",
            Refusal::TooLarge { .. } => "file-over-cap",
        }
    }

    /// The refusal and what to do, as the one line a command prints.
    pub fn line(&self) -> String {
        match self {
            Refusal::Symlink { .. } => {
                format!("{self}: replace the link with a copy of the file it points to")
            }
            _ => format!("{self}; {}", self.kind().next_step()),
        }
    }

    pub(super) fn into_io(self) -> io::Error {
        let kind = match self {
            Refusal::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, self)
    }
}

/// The refusal an `Io::read` error carries, if it is one (and not an I/O failure).
pub fn refusal(e: &io::Error) -> Option<&Refusal> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Refusal>())
}

/// The `Refusal` an `Io::read` error carries, or the error as it was.
pub fn into_refusal(e: io::Error) -> Result<Refusal, io::Error> {
    if refusal(&e).is_none() {
        return Err(e);
    }
    let kind = e.kind();
    match e.into_inner() {
        Some(inner) => inner
            .downcast::<Refusal>()
            .map(|r| *r)
            .map_err(|inner| io::Error::new(kind, inner)),
        None => Err(io::Error::from(kind)),
    }
}
