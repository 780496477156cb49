//! The pre-commit guard as git finds it: `.git/hooks/pre-commit` holds exactly HEAD's
//! `scripts/git-hooks/pre-commit`, is this user's and executable, and no `core.hooksPath`
//! sends git elsewhere. The store's repository reports it to doctor; commit checks it too.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Where the guard is committed, and where git runs it from.
pub const HOOK_SOURCE: &str = "scripts/git-hooks/pre-commit";
const HOOK_INSTALLED: &str = "hooks/pre-commit";

/// What the guard needs short of running it (`doctor` writes nothing, and the canary builds
/// an index): the installed file and no `core.hooksPath`. `Err` is the one-line reason.
pub fn check_installed(root: &Path, git_dir: &Path, head: &str) -> Result<(), String> {
    check_file(root, git_dir, head)?;
    check_config(root)
}

/// `.git/hooks/pre-commit` is a regular executable file owned by this user, with exactly the
/// bytes of HEAD's `scripts/git-hooks/pre-commit`.
fn check_file(root: &Path, git_dir: &Path, head: &str) -> Result<(), String> {
    let hook = git_dir.join(HOOK_INSTALLED);
    let shown = hook.display();
    let install = "install it with `mosaic-queue install-hook`";
    // symlink_metadata: a symlink is not the regular file the contract asks for.
    let meta = std::fs::symlink_metadata(&hook)
        .map_err(|e| format!("the guard {shown} is not installed ({e}); {install}"))?;
    if !meta.file_type().is_file() {
        return Err(format!(
            "the guard {shown} is not a regular file; {install}"
        ));
    }
    if meta.permissions().mode() & 0o100 == 0 {
        return Err(format!(
            "the guard {shown} is not executable, so git skips it; {install}"
        ));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(format!(
            "the guard {shown} is owned by uid {}, not by this user (uid {me}); {install}",
            meta.uid()
        ));
    }
    let cap = crate::io::Kind::Hook.cap();
    let committed = crate::git::blob_within(root, &format!("{head}:{HOOK_SOURCE}"), cap)
        .map_err(|e| match e {
            crate::git::BlobError::TooLarge { size } => format!(
                "HEAD's {HOOK_SOURCE} is {size} bytes, over the {} cap for a git hook, so the guard cannot be checked; restore the hook from git",
                crate::io::size_text(cap)
            ),
            crate::git::BlobError::Git(_) => format!(
                "HEAD has no {HOOK_SOURCE}, so the guard cannot be checked; commit it first"
            ),
        })?;
    let installed = crate::io::read_checked(&hook, crate::io::Kind::Hook)
        .map_err(|e| format!("cannot read the guard {shown}: {e}"))?;
    if installed != committed {
        return Err(format!(
            "the guard {shown} differs from HEAD's {HOOK_SOURCE}; {install}"
        ));
    }
    Ok(())
}

/// No `core.hooksPath` in any scope (command line and `GIT_CONFIG_*` included): it would make
/// git run another hook, or none.
fn check_config(root: &Path) -> Result<(), String> {
    match crate::git::text(
        root,
        &["config", "--show-origin", "--get-all", "core.hooksPath"],
        None,
    ) {
        Ok(found) if !found.trim().is_empty() => {
            let first = found.lines().next().unwrap_or_default().replace('\t', " ");
            Err(format!(
                "core.hooksPath is set ({first}), so git would not run the guard; unset it in every scope"
            ))
        }
        Ok(_) => Ok(()),
        // Exit 1 with nothing on stderr is git's "not set"; anything else is not an answer.
        Err(e) if e.is_empty() => Ok(()),
        Err(e) => Err(format!("cannot read core.hooksPath: {e}")),
    }
}
