//! The environment a remote command runs in, built from the key's forced command and nothing
//! the client sent: sshd passes the variables its `AcceptEnv` names, so every variable but the
//! account's own is dropped, and the seat and Gitea settings come from the gate's arguments.

use std::ffi::OsString;

use crate::command::gate_args::GateArgs;

/// What sshd sets from the account itself; everything else is removed.
const KEPT: &[&str] = &["PATH", "HOME", "USER", "LOGNAME"];

/// The variables the remote command runs with, besides `KEPT`.
pub fn settings(seat: &str, args: &GateArgs) -> Vec<(&'static str, OsString)> {
    let mut vars = vec![("MOSAIC_AGENT_NAME", OsString::from(seat))];
    let gitea = [
        (
            "MOSAIC_GITEA_URL",
            args.gitea_url.clone().map(OsString::from),
        ),
        (
            "MOSAIC_GITEA_REPO",
            args.gitea_repo.clone().map(OsString::from),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            args.gitea_credential_file.clone().map(OsString::from),
        ),
    ];
    vars.extend(gitea.into_iter().filter_map(|(k, v)| Some((k, v?))));
    vars
}

/// Replaces this process's environment: `KEPT` as it is, then `vars`.
///
/// The process's own environment, not values handed to the verbs: what is dropped matters
/// to everything the verbs start (each `git` inherits it, a client's `GIT_*` or `LD_*`
/// included), and the verbs read the actor and the Gitea settings from it as they do for
/// every face (`actor`, `gitea::GiteaConfig::from_env`). Called by the gate before it starts
/// any thread (the MCP server's runtime) or process (a verb's git), which is what makes
/// changing the environment sound.
pub fn replace(vars: &[(&'static str, OsString)]) {
    let drop: Vec<OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| !KEPT.iter().any(|k| name == k) && removable(name))
        .collect();
    // SAFETY: `main` calls the gate straight after parsing the command line, and the gate
    // calls this before it starts anything: until then the process has its main thread only
    // (parsing, a chdir and an lstat start none), so nothing reads or writes the environment
    // while it changes.
    unsafe {
        for name in drop {
            std::env::remove_var(name);
        }
        for (name, value) in vars {
            std::env::set_var(name, value);
        }
    }
}

/// Whether `remove_var` takes `name` without panicking. An entry whose name it refuses (empty,
/// holding `=` or NUL) names no variable anything reads, so it is left where it is.
fn removable(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    !bytes.is_empty() && !bytes.contains(&b'=') && !bytes.contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_comes_from_the_line_alone() {
        let args = GateArgs {
            seat: "darkwing".into(),
            root: None,
            gitea_url: Some("https://git.example.com".into()),
            gitea_repo: None,
            gitea_credential_file: Some("/srv/agents/darkwing/secrets/t.token".into()),
        };
        assert_eq!(
            settings("darkwing", &args),
            [
                ("MOSAIC_AGENT_NAME", OsString::from("darkwing")),
                (
                    "MOSAIC_GITEA_URL",
                    OsString::from("https://git.example.com")
                ),
                (
                    "MOSAIC_GITEA_CREDENTIAL_FILE",
                    OsString::from("/srv/agents/darkwing/secrets/t.token")
                ),
            ]
        );
    }

    #[test]
    fn names_remove_var_would_panic_on_are_left() {
        assert!(removable(std::ffi::OsStr::new("GIT_DIR")));
        for name in ["", "=x", "a=b", "a\0b"] {
            assert!(!removable(std::ffi::OsStr::new(name)), "{name:?}");
        }
    }
}
