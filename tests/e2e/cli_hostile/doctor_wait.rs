//! Hostile things standing at `.git` itself: every verb, `doctor` and `wait` among them,
//! refuses with the same exit and the same one line, which names the cause once.

use super::{Case, Family, Setup, Thing, change, refs};

/// The start of the line every verb prints where no repository is found: the checkout's
/// words, then gitoxide's, never the checkout's words twice.
const NOT_GIT: &str =
    "mosaic-queue: not inside a git checkout (Could not find a git repository in '";

/// `.git` as a FIFO, a file, an empty directory, a dangling symlink and a symlink loop, under
/// the verbs that must find the repository first.
pub(super) fn cases() -> Vec<Case> {
    let git = "repo/.git";
    let things: Vec<(&str, Thing)> = vec![
        ("fifo", Box::new(|p| Setup::Fifo(p.into()))),
        (
            "file",
            Box::new(|p| Setup::Write(p.into(), b"gitdir: nowhere\n".to_vec())),
        ),
        ("empty-dir", Box::new(|p| Setup::Dir(p.into()))),
        (
            "symlink-dangling",
            Box::new(|p| Setup::Symlink(p.into(), "{base}/nowhere".into())),
        ),
        (
            "symlink-loop",
            Box::new(|p| Setup::Symlink(p.into(), ".git".into())),
        ),
    ];
    let verbs: Vec<(&str, Vec<String>)> = vec![
        ("doctor", vec!["doctor".into()]),
        ("list", vec!["list".into()]),
        ("verify", vec!["verify".into()]),
        (
            "wait",
            ["wait", "1", "--status", "done", "--timeout", "5"]
                .map(String::from)
                .to_vec(),
        ),
        ("unlock", vec!["unlock".into()]),
        ("sync", vec!["sync".into()]),
        (
            "note",
            change(&["note", "1", "text"], "hostile-op-1", "darkwing"),
        ),
    ];
    let mut out = Vec::new();
    for (tlabel, thing) in &things {
        for (verb, args) in &verbs {
            out.push(
                Case::new(
                    Family::Filesystem,
                    format!("fs/dot-git/{tlabel}/{verb}"),
                    &refs(args),
                    2,
                    NOT_GIT,
                )
                .setup(thing(git)),
            );
        }
    }
    out
}
