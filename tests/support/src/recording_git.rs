//! A `git` that records each call and answers nothing: a directory holding only it, put alone
//! on PATH, shows every git a run started, including one whose failure the binary swallowed
//! (an empty PATH shows only the spawns whose failure reaches the output).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What the recording git says on stderr before it exits 1.
pub const SAYS: &str = "recording git: no repository here";

/// The directory with the script, and the file each call appends its arguments to.
pub struct RecordingGit {
    pub dir: PathBuf,
    pub record: PathBuf,
}

impl RecordingGit {
    /// Writes the script under `base/recording-git/`.
    pub fn new(base: &Path) -> RecordingGit {
        let dir = base.join("recording-git");
        std::fs::create_dir_all(&dir).unwrap();
        let record = base.join("recording-git.calls");
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"git $*\" >> '{}'\necho '{SAYS}' >&2\nexit 1\n",
            record.display()
        );
        let git = dir.join("git");
        std::fs::write(&git, script).unwrap();
        std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
        RecordingGit { dir, record }
    }

    /// The PATH that holds the recording git and nothing else.
    pub fn path(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    /// The calls recorded so far, one line each, and the record emptied.
    pub fn take(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        let _ = std::fs::remove_file(&self.record);
        text.lines().map(str::to_owned).collect()
    }
}
