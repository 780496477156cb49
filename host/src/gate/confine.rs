//! The gate's policy held for the life of the process, so the MCP server it starts judges each
//! tool call's verb as the gate judged the command: a process that is no gate (the CLI, a
//! local MCP server) has no confinement and every call passes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::error::GateError;
use super::policy;
use crate::cli::Cli;

/// The seat the key pins and the checkout's top, where a verb's relative paths start.
#[derive(Debug)]
pub struct Confinement {
    pub seat: String,
    pub root: PathBuf,
}

static CONFINED: OnceLock<Confinement> = OnceLock::new();

/// Confines the rest of this process's life to `confinement`, and from now on it answers a
/// remote seat (`remote::is`); a second call changes nothing.
pub fn confine(confinement: Confinement) {
    crate::remote::set();
    let _ = CONFINED.set(confinement);
}

/// Judges `cli` as the gate does, when this process is a gate's; `Ok` otherwise.
pub fn admit(cli: &Cli) -> Result<(), GateError> {
    match CONFINED.get() {
        Some(c) => judge(c, cli),
        None => Ok(()),
    }
}

/// Judges `cli` for `c`'s seat, with relative paths taken from `c`'s checkout.
pub fn judge(c: &Confinement, cli: &Cli) -> Result<(), GateError> {
    policy::check(&c.seat, cli, &|value| names_file(&c.root, value))
}

/// Whether `value` from `root` reaches something that is not a directory: a file, a
/// symlink, a fifo, a device. Anything that cannot be looked at counts as a file too.
fn names_file(root: &Path, value: &str) -> bool {
    match std::fs::symlink_metadata(root.join(value)) {
        Ok(meta) => !meta.is_dir(),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_file_tells_files_from_directories_and_nothing() {
        let dir = std::env::temp_dir().join(format!("gate-names-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("m.txt"), "x").unwrap();
        std::os::unix::fs::symlink("sub", dir.join("link")).unwrap();
        assert!(names_file(&dir, "m.txt"));
        assert!(names_file(&dir, "link"));
        assert!(!names_file(&dir, "sub"));
        assert!(!names_file(&dir, "main"));
        assert!(!names_file(&dir, "feature/x"));
        // A path through a file cannot be looked at: it counts as a file.
        assert!(names_file(&dir, "m.txt/x"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
