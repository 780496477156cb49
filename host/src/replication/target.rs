//! `--to REMOTE` and `--ref REF` as `follow` and `adopt` take them: a remote is a name git
//! knows or a URL, never an option and never a URL that carries a password (credentials are
//! git's own: an ssh key, a credential helper); a ref is a full ref name git would accept.

use std::time::Duration;

use super::round::Target;

/// The ref a follower pushes to unless told otherwise: outside heads and tags, so no branch
/// list shows it; a host that refuses such refs takes `--ref refs/heads/...`.
pub const DEFAULT_REF: &str = "refs/mosaic-queue/live";

/// How long one remote call (`ls-remote`, `fetch`, `push`) may take unless told otherwise.
pub const DEFAULT_GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most characters a remote or a ref may have.
const MAX_LEN: usize = 1024;

/// `remote` and `reference` checked, with the deadline of each remote call.
pub fn target(remote: &str, reference: &str, deadline: Duration) -> Result<Target, String> {
    check_remote(remote)?;
    check_ref(reference)?;
    Ok(Target {
        remote: remote.to_owned(),
        reference: reference.to_owned(),
        deadline,
    })
}

fn check_remote(remote: &str) -> Result<(), String> {
    if remote.is_empty() || remote.len() > MAX_LEN {
        return Err(String::from(
            "the remote is empty or longer than 1024 characters; name a git remote or its URL",
        ));
    }
    if remote.starts_with('-') {
        return Err(format!(
            "the remote {remote:?} starts with '-', which git would read as an option; name a git remote or its URL"
        ));
    }
    if remote.chars().any(char::is_control) {
        return Err(String::from(
            "the remote holds a control character; name a git remote or its URL",
        ));
    }
    if let Some((_, rest)) = remote.split_once("://")
        && let Some((userinfo, _)) = rest.split('/').next().unwrap_or("").rsplit_once('@')
        && userinfo.contains(':')
    {
        return Err(String::from(
            "the remote's URL carries a password, which would be printed and stored; give git its credentials with an ssh key or a credential helper and name the URL without it",
        ));
    }
    if mosaic_queue_core::credential(remote).is_some() {
        return Err(String::from(
            "the remote looks like it holds a credential, which would be printed and stored; name the remote without it",
        ));
    }
    Ok(())
}

/// The rules of `git check-ref-format` that matter here, and a full name under `refs/`.
fn check_ref(reference: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "{reference:?} is not a ref to push to ({why}); give a full ref name such as {DEFAULT_REF} or refs/heads/mosaic-queue"
        ))
    };
    if reference.len() > MAX_LEN {
        return bad("too long");
    }
    let Some(rest) = reference.strip_prefix("refs/") else {
        return bad("it does not start with refs/");
    };
    if rest.is_empty() || reference.ends_with('/') || reference.ends_with('.') {
        return bad("it ends with '/' or '.'");
    }
    if reference.contains("..") || reference.contains("@{") || reference.contains("//") {
        return bad("it holds '..', '@{' or '//'");
    }
    if reference
        .chars()
        .any(|c| c.is_control() || " ~^:?*[\\".contains(c))
    {
        return bad("it holds a space, a control character or one of ~^:?*[\\");
    }
    if reference
        .split('/')
        .any(|part| part.starts_with('.') || part.ends_with(".lock"))
    {
        return bad("a part starts with '.' or ends with .lock");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_and_refs_are_held_to_what_git_and_the_queue_accept() {
        let t = |r: &str, f: &str| target(r, f, DEFAULT_GIT_TIMEOUT).map(drop);
        assert!(t("origin", DEFAULT_REF).is_ok());
        assert!(
            t(
                "ssh://git@gitea.example:2222/team/stack.git",
                "refs/heads/mosaic-queue"
            )
            .is_ok()
        );
        assert!(t("/srv/backup/stack.git", DEFAULT_REF).is_ok());
        for (remote, why) in [
            ("", "empty"),
            ("--upload-pack=sh", "starts with '-'"),
            (
                "https://jarvis:hunter2@gitea.example/team/stack.git",
                "carries a password",
            ),
            ("origin\nx", "control character"),
        ] {
            let got = t(remote, DEFAULT_REF).unwrap_err();
            assert!(got.contains(why), "{remote:?}: {got}");
        }
        for (reference, why) in [
            ("mosaic-queue/live", "does not start with refs/"),
            ("refs/", "ends with"),
            ("refs/heads/a..b", "'..'"),
            ("refs/heads/a b", "a space"),
            ("refs/heads/x.lock", ".lock"),
            ("refs/heads/.hidden", "starts with '.'"),
        ] {
            let got = t("origin", reference).unwrap_err();
            assert!(got.contains(why), "{reference:?}: {got}");
        }
    }
}
