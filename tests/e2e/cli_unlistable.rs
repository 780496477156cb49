//! A checkout whose `.git` cannot be listed (mode 000): doctor could not look, which is exit 1
//! as docs/doctor.md says, and every verb that needs the checkout ends the same way with the
//! same line (never "not inside a git checkout", exit 2). Root ignores mode bits, so as root
//! the checkout is given to the `nobody` user (uid 65534) and each command runs as that user
//! through util-linux's `setpriv`; as any other user the user's own checkout is used.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use support::{Out, Repo, command};

/// The user the commands run as when the tests run as root.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A checkout the commands' user owns, and what doctor says of it while `.git` is listable.
fn owned(name: &str) -> (Repo, Out) {
    let repo = Repo::new(name);
    if is_root() {
        let chowned = Command::new("chown")
            .args(["-R", &format!("{NOBODY}:{NOBODY}")])
            .arg(&repo.base)
            .status()
            .expect("chown runs");
        assert!(chowned.success(), "chown -R of the scratch checkout");
    }
    let doctor = run(&repo, &["doctor"], &[]);
    (repo, doctor)
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs the binary with `args` in the checkout, as `nobody` when the tests run as root.
fn run(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Out {
    let cmd = command(&repo.root, args, env);
    let mut cmd = if is_root() {
        let mut wrapped = Command::new("setpriv");
        wrapped
            .arg(format!("--reuid={NOBODY}"))
            .arg(format!("--regid={NOBODY}"))
            .args(["--clear-groups", "--"])
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .current_dir(&repo.root)
            .stdin(std::process::Stdio::null());
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => wrapped.env(key, v),
                None => wrapped.env_remove(key),
            };
        }
        wrapped
    } else {
        cmd
    };
    let out = cmd
        .output()
        .expect("the binary runs (as root: setpriv, from util-linux)");
    Out {
        code: out.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Every verb that needs the checkout, with arguments it would otherwise take.
const VERBS: &[&[&str]] = &[
    &["list"],
    &["list", "--stale", "3"],
    &["show", "1"],
    &["next", "darkwing"],
    &["next", "darkwing", "--explain"],
    &["prime", "darkwing"],
    &["log"],
    &["wait", "1", "--status", "done", "--timeout", "0"],
    &["add", "--piece", "P", "--op", "lead-add-1", "--by", "lead"],
    &[
        "move",
        "1",
        "in-progress",
        "--op",
        "darkwing-1-start",
        "--by",
        "darkwing",
    ],
    &["take", "--op", "darkwing-take-1", "--by", "darkwing"],
    &["release", "1", "--op", "darkwing-1-rel", "--by", "darkwing"],
    &[
        "assign",
        "2",
        "flicker",
        "--op",
        "lead-assign-1",
        "--by",
        "lead",
    ],
    &[
        "note",
        "1",
        "n",
        "--op",
        "darkwing-1-note",
        "--by",
        "darkwing",
    ],
    &[
        "set",
        "1",
        "gate",
        "jason",
        "--op",
        "darkwing-1-set",
        "--by",
        "darkwing",
    ],
    &[
        "genesis",
        "--map",
        "map.md",
        "--op",
        "jason-gen-1",
        "--by",
        "jason",
    ],
    &["verify"],
    &["verify", "--full"],
    &["render"],
    &["sync"],
    &["snapshot", "--out", "snap"],
    &["commit", "-m", "queue", "--by", "lead"],
    &["unlock"],
    &[
        "accept-history",
        "--reason",
        "r",
        "--yes",
        "--op",
        "jason-acc-1",
        "--by",
        "jason",
    ],
    &[
        "archive",
        "--before",
        "2",
        "--yes",
        "--op",
        "lead-archive-1",
        "--by",
        "lead",
    ],
    &["doctor"],
    &["doctor", "--json"],
    &["guard"],
    &["install-hook", "--by", "jason"],
    &[
        "review",
        "request",
        "1",
        "--op",
        "darkwing-1-req",
        "--by",
        "darkwing",
    ],
    &["review", "verify-commit", "1", "HEAD"],
    &["mcp", "--seat", "darkwing"],
];

#[test]
fn an_unlistable_git_dir_is_exit_1_from_doctor_and_every_verb() {
    let (repo, listable) = owned("git-000");
    assert!(
        listable.stdout.ends_with("\n") && !listable.stdout.contains("cannot list"),
        "{listable:?}"
    );
    set_mode(&repo.root.join(".git"), 0o000);
    let line = format!(
        "mosaic-queue: cannot list {}/.git: Permission denied (os error 13); check the checkout's permissions",
        repo.root.display()
    );
    for args in VERBS {
        let out = run(&repo, args, &[]);
        if args.contains(&"--json") {
            assert_eq!(out.code, 1, "{args:?}: {out:?}");
            let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(
                (&doc["error"]["exit"], &doc["error"]["kind"]),
                (&1.into(), &"unlistable".into()),
                "{args:?}"
            );
            continue;
        }
        assert_eq!(out.fails(1), line, "{args:?}");
    }
    // Through the gate too, whose --root names the checkout.
    let root = repo.root.to_str().unwrap();
    let out = run(
        &repo,
        &["gate", "--seat", "darkwing", "--root", root],
        &[("SSH_ORIGINAL_COMMAND", "list")],
    );
    assert_eq!(out.fails(1), line, "through the gate");
    // Listable again, doctor says what it said before: nothing was changed meanwhile.
    set_mode(&repo.root.join(".git"), 0o755);
    let doctor = run(&repo, &["doctor"], &[]);
    assert_eq!(
        (doctor.code, &doctor.stdout, &doctor.stderr),
        (listable.code, &listable.stdout, &listable.stderr)
    );
}
