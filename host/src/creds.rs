//! The seat's Gitea token: the path rules, then the file opened with O_NOFOLLOW and checked on
//! the open descriptor, so nothing can swap it between the checks and the read. Called by the
//! Gitea client before it sends a byte; the token never reaches a message, a log or a `Debug`.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{self, FileType, Mode, OFlags};

/// The largest token file read; a Gitea token is 40 hex characters, so anything near this is
/// not a token file.
const MAX_TOKEN_BYTES: usize = 4096;

/// Why a credential file was refused. Every variant is decided before any network byte.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// The login is empty or could not be a path component.
    #[error("login {0:?} is not a Gitea login; a seat name is letters, digits, '.', '_' or '-'")]
    BadLogin(String),
    /// The shared credential file, which no seat may post with.
    #[error(
        "{0} is the shared Gitea credential; set MOSAIC_GITEA_CREDENTIAL_FILE to your own \
         agents/<login>/secrets/gitea-mosaicstack-<login>.token"
    )]
    SharedFile(PathBuf),
    /// The path does not end the way the seat's own token file does.
    #[error(
        "{path} is not {login}'s token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in {suffix}"
    )]
    WrongPath {
        path: PathBuf,
        login: String,
        suffix: String,
    },
    /// Nothing is at the path.
    #[error("{0} does not exist; create the token file or fix MOSAIC_GITEA_CREDENTIAL_FILE")]
    Missing(PathBuf),
    /// The path is a symlink (checked with lstat, and again by the open).
    #[error("{0} is a symlink; point MOSAIC_GITEA_CREDENTIAL_FILE at the token file itself")]
    Symlink(PathBuf),
    /// A directory, fifo, socket or device.
    #[error("{0} is not a regular file; the token file must be a plain file")]
    NotRegular(PathBuf),
    /// A directory on the way is a symlink that leads somewhere not shaped like the token path.
    #[error("{path} resolves to {real}, which does not end in {suffix}; use the real token file")]
    RealPathElsewhere {
        path: PathBuf,
        real: PathBuf,
        suffix: String,
    },
    /// The file belongs to another user.
    #[error("{0} belongs to uid {1}, not to this user; the token file must be your own")]
    WrongOwner(PathBuf, u32),
    /// Group or others can read it, or it is not readable and writable by its owner only.
    #[error("{path} has mode {mode:04o}; it must be 0600 (chmod 600 {path})")]
    WrongMode { path: PathBuf, mode: u32 },
    /// The file at the path changed between lstat and open.
    #[error("{0} changed while it was being checked; run the command again")]
    Swapped(PathBuf),
    /// The file is larger than any token.
    #[error("{0} is larger than {MAX_TOKEN_BYTES} bytes; it does not hold a single token")]
    TooLarge(PathBuf),
    /// Nothing left after the trailing newline is removed.
    #[error("{0} is empty; write the seat's Gitea token into it")]
    Empty(PathBuf),
    /// More than one line.
    #[error("{0} holds more than one line; it must hold only the token")]
    MultiLine(PathBuf),
    /// Spaces, control characters or non-ASCII bytes in the token.
    #[error("{0} holds characters a token cannot have (spaces, control or non-ASCII bytes)")]
    NotPrintable(PathBuf),
    /// An I/O error while checking or reading.
    #[error("cannot read {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// A token read from a checked file. It has no `Debug` or `Display`, and its bytes are
/// overwritten when it is dropped.
pub struct Token(Wiped);

impl Token {
    /// The `Authorization` header value for this token.
    pub(crate) fn authorization(&self) -> Wiped {
        Wiped(format!("token {}", self.0.0))
    }
}

/// A secret string whose bytes are overwritten on drop (best effort: copies made by the HTTP
/// library are out of reach).
pub(crate) struct Wiped(String);

impl Wiped {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl Drop for Wiped {
    fn drop(&mut self) {
        let mut bytes = std::mem::take(&mut self.0).into_bytes();
        bytes.fill(0);
        std::hint::black_box(&bytes);
    }
}

/// The seat's Gitea login, by the core's rule: the lead posts as `jarvis`, every other seat
/// as itself.
pub fn login_of(seat: &str) -> &str {
    mosaic_queue_core::gitea_login(seat)
}

/// The path suffix that the seat's own token file has.
pub fn token_suffix(login: &str) -> String {
    format!("/agents/{login}/secrets/gitea-mosaicstack-{login}.token")
}

/// Checks `path` against the rules for `login`'s token file and reads the token.
pub fn read_token(path: &Path, login: &str) -> Result<Token, CredentialError> {
    let suffix = check_path(path, login)?;
    let linked = check_link(path, &suffix)?;
    let fd = open_checked(path, &linked)?;
    read_checked(path, fd)
}

/// The path rules, before the file is looked at: a valid login, not the shared credential,
/// and the seat's own suffix, which it returns.
fn check_path(path: &Path, login: &str) -> Result<String, CredentialError> {
    let valid_login = !login.is_empty()
        && login
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && login != "."
        && login != "..";
    if !valid_login {
        return Err(CredentialError::BadLogin(login.to_owned()));
    }
    let text = path.as_os_str().as_encoded_bytes();
    if text.ends_with(b"/secrets/mosaic.gitea.json") || text == b"secrets/mosaic.gitea.json" {
        return Err(CredentialError::SharedFile(path.to_path_buf()));
    }
    let suffix = token_suffix(login);
    if !text.ends_with(suffix.as_bytes()) {
        return Err(CredentialError::WrongPath {
            path: path.to_path_buf(),
            login: login.to_owned(),
            suffix,
        });
    }
    Ok(suffix)
}

/// What is at the path, not followed: a regular file whose real path still ends in `suffix`
/// (no directory on the way leads elsewhere). Returns its lstat, for the open to compare.
fn check_link(path: &Path, suffix: &str) -> Result<fs::Stat, CredentialError> {
    let owned = || path.to_path_buf();
    let io = |e: std::io::Error| CredentialError::Io(owned(), e);
    let linked = match fs::lstat(path) {
        Ok(st) => st,
        Err(rustix::io::Errno::NOENT) => return Err(CredentialError::Missing(owned())),
        Err(e) => return Err(io(e.into())),
    };
    match FileType::from_raw_mode(linked.st_mode) {
        FileType::RegularFile => {}
        FileType::Symlink => return Err(CredentialError::Symlink(owned())),
        _ => return Err(CredentialError::NotRegular(owned())),
    }
    let real = path.canonicalize().map_err(io)?;
    if !real
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(suffix.as_bytes())
    {
        return Err(CredentialError::RealPathElsewhere {
            path: owned(),
            real,
            suffix: suffix.to_owned(),
        });
    }
    Ok(linked)
}

/// The file opened without following a link, and checked on the open descriptor: the regular
/// file `linked` saw, owned by this user, mode 0600.
fn open_checked(path: &Path, linked: &fs::Stat) -> Result<OwnedFd, CredentialError> {
    let owned = || path.to_path_buf();
    let io = |e: std::io::Error| CredentialError::Io(owned(), e);
    // NONBLOCK: a fifo swapped in after the lstat must not hang the open; fstat refuses it.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let fd = match fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP) => return Err(CredentialError::Symlink(owned())),
        Err(rustix::io::Errno::NOENT) => return Err(CredentialError::Swapped(owned())),
        Err(e) => return Err(io(e.into())),
    };
    let st = fs::fstat(&fd).map_err(|e| io(e.into()))?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(CredentialError::NotRegular(owned()));
    }
    if st.st_dev != linked.st_dev || st.st_ino != linked.st_ino {
        return Err(CredentialError::Swapped(owned()));
    }
    let euid = rustix::process::geteuid().as_raw();
    if st.st_uid != euid {
        return Err(CredentialError::WrongOwner(owned(), st.st_uid));
    }
    let mode = st.st_mode & 0o7777;
    if mode != 0o600 {
        return Err(CredentialError::WrongMode {
            path: owned(),
            mode,
        });
    }
    Ok(fd)
}

/// The token from the checked descriptor, read up to one byte past the cap; the buffer is
/// overwritten before it is dropped.
fn read_checked(path: &Path, fd: OwnedFd) -> Result<Token, CredentialError> {
    let owned = || path.to_path_buf();
    let mut bytes = Vec::with_capacity(MAX_TOKEN_BYTES + 1);
    let read = std::fs::File::from(fd)
        .take(MAX_TOKEN_BYTES as u64 + 1)
        .read_to_end(&mut bytes);
    let result = match read {
        Err(e) => Err(CredentialError::Io(owned(), e)),
        Ok(_) if bytes.len() > MAX_TOKEN_BYTES => Err(CredentialError::TooLarge(owned())),
        Ok(_) => token_text(&bytes)
            .map(|t| Token(Wiped(t.to_owned())))
            .map_err(|f| f(owned())),
    };
    bytes.fill(0);
    std::hint::black_box(&bytes);
    result
}

/// The token in a file's bytes: one trailing newline (LF or CRLF) removed, then one line of
/// visible ASCII, so it fits the two-field `Authorization: token <T>` header.
fn token_text(bytes: &[u8]) -> Result<&str, fn(PathBuf) -> CredentialError> {
    let line = bytes
        .strip_suffix(b"\r\n")
        .or_else(|| bytes.strip_suffix(b"\n"))
        .unwrap_or(bytes);
    if line.is_empty() {
        return Err(CredentialError::Empty);
    }
    if line.iter().any(|&b| b == b'\n' || b == b'\r') {
        return Err(CredentialError::MultiLine);
    }
    if !line.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(CredentialError::NotPrintable);
    }
    // Visible ASCII is UTF-8.
    std::str::from_utf8(line).map_err(|_| CredentialError::NotPrintable as fn(_) -> _)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lead_posts_as_jarvis() {
        assert_eq!(login_of("lead"), "jarvis");
        assert_eq!(login_of("darkwing"), "darkwing");
        assert_eq!(login_of("jarvis"), "jarvis");
    }

    #[test]
    fn token_text_trims_one_newline_only() {
        assert_eq!(token_text(b"abc\n").ok(), Some("abc"));
        assert_eq!(token_text(b"abc\r\n").ok(), Some("abc"));
        assert_eq!(token_text(b"abc").ok(), Some("abc"));
        let refused = |b: &[u8]| token_text(b).err().map(|f| f(PathBuf::new()).to_string());
        assert!(refused(b"\n").unwrap().contains("is empty"));
        assert!(refused(b"abc\n\n").unwrap().contains("more than one line"));
        assert!(refused(b"a\nb").unwrap().contains("more than one line"));
        assert!(
            refused(b"a b")
                .unwrap()
                .contains("characters a token cannot have")
        );
        assert!(
            refused(b"a\tb")
                .unwrap()
                .contains("characters a token cannot have")
        );
        assert!(
            refused("t\u{e9}".as_bytes())
                .unwrap()
                .contains("characters")
        );
    }

    #[test]
    fn bad_logins_refuse_before_the_path_is_looked_at() {
        for login in ["", "..", "a/b", "a b", "x\0"] {
            let err = read_token(Path::new("/nowhere"), login).err().unwrap();
            assert!(matches!(err, CredentialError::BadLogin(_)), "{login:?}");
        }
    }
}
