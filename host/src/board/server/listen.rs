//! Where the board listens: `--listen IP:PORT`, loopback only (127.0.0.0/8 or ::1). Anything
//! else is refused before a socket opens: people on other machines reach the board through
//! `ssh -L`, so the board never faces a network.

use std::net::{SocketAddr, TcpListener};

use thiserror::Error;

use crate::exit::Exit;
use crate::reply::Failure;

/// Where the board listens when `--listen` is not given (the command line's default).
pub const DEFAULT: &str = crate::command::grammar::BOARD_LISTEN;

/// Why the board did not start.
#[derive(Debug, Error)]
pub enum ListenError {
    /// Not `IP:PORT`.
    #[error(
        "--listen {0:?} is not an address; give IP:PORT on loopback, e.g. 127.0.0.1:7461 (port 0 picks a free one)"
    )]
    NotAnAddress(String),
    /// An address other machines could reach.
    #[error(
        "--listen {0} is not a loopback address; the board listens on 127.0.0.1 or [::1] only: people elsewhere reach it with ssh -L PORT:127.0.0.1:PORT queue-host"
    )]
    NotLoopback(SocketAddr),
    /// The port is taken, or the address cannot be bound.
    #[error(
        "cannot listen on {0}: {1}; give another port with --listen 127.0.0.1:PORT (0 picks a free one)"
    )]
    Bind(SocketAddr, std::io::Error),
}

impl ListenError {
    pub fn exit(&self) -> Exit {
        match self {
            ListenError::NotAnAddress(_) | ListenError::NotLoopback(_) => Exit::Refused,
            ListenError::Bind(..) => Exit::Failed,
        }
    }
}

impl From<ListenError> for Failure {
    fn from(e: ListenError) -> Failure {
        Failure::new(e.exit(), e.to_string())
    }
}

/// The address `--listen` names, checked to be on loopback.
pub fn address(given: Option<&str>) -> Result<SocketAddr, ListenError> {
    let text = given.unwrap_or(DEFAULT);
    let addr: SocketAddr = text
        .parse()
        .map_err(|_| ListenError::NotAnAddress(text.to_owned()))?;
    if !addr.ip().is_loopback() {
        return Err(ListenError::NotLoopback(addr));
    }
    Ok(addr)
}

/// A listener on `addr`, non-blocking for the runtime.
pub fn bind(addr: SocketAddr) -> Result<TcpListener, ListenError> {
    let listener = TcpListener::bind(addr).map_err(|e| ListenError::Bind(addr, e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| ListenError::Bind(addr, e))?;
    Ok(listener)
}

/// The address as the first line prints it: `http://127.0.0.1:PORT/`.
pub fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_accepted() {
        assert_eq!(address(None).unwrap().to_string(), DEFAULT);
        assert_eq!(address(Some("127.0.0.1:0")).unwrap().port(), 0);
        assert!(address(Some("127.9.9.9:80")).is_ok());
        assert!(address(Some("[::1]:8080")).is_ok());
        for refused in ["0.0.0.0:8080", "[::]:8080", "192.168.1.4:80", "10.0.0.1:1"] {
            let e = address(Some(refused)).unwrap_err();
            assert_eq!(e.exit(), Exit::Refused);
            assert!(e.to_string().contains("ssh -L"), "{e}");
        }
        for bad in ["localhost:80", "127.0.0.1", ":80", "127.0.0.1:99999", ""] {
            assert!(
                matches!(address(Some(bad)), Err(ListenError::NotAnAddress(_))),
                "{bad}"
            );
        }
        assert_eq!(url("[::1]:9".parse().unwrap()), "http://[::1]:9/");
    }
}
