//! How the binary speaks when the world is hostile to it: a stderr that cannot be written
//! never panics or changes an outcome; git missing from PATH, a checkout path holding a
//! newline and a QUEUE.md that is not UTF-8 are each named for what they are, with the same
//! exit code from every verb.

use std::fs::File;
use std::process::{Output, Stdio};

use support::{Out, Repo, change, command};

const QUEUE_MD: &str = "docs/plans/QUEUE.md";

/// Where a test sends the binary's stderr.
#[derive(Debug, Clone, Copy)]
enum Stderr {
    /// `2>/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader is gone: every write fails with EPIPE.
    ClosedPipe,
}

fn stderr_of(kind: Stderr) -> Stdio {
    match kind {
        Stderr::Full => File::options()
            .write(true)
            .open("/dev/full")
            .unwrap()
            .into(),
        Stderr::ClosedPipe => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            writer.into()
        }
    }
}

/// Runs with stderr unwritable; the exit code and stdout.
fn run_mute(repo: &Repo, args: &[&str], env: &[(&str, &str)], err: Stderr) -> (i32, String) {
    let out: Output = command(&repo.root, args, env)
        .stderr(stderr_of(err))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn an_unwritable_stderr_changes_no_outcome() {
    for err in [Stderr::Full, Stderr::ClosedPipe] {
        let repo = Repo::new("stderr");
        let before = repo.snapshot();
        // A refusal keeps its exit code and writes nothing.
        let (code, stdout) = run_mute(
            &repo,
            &change(&["note", "9", "x"], "darkwing-9-note", "darkwing"),
            &[],
            err,
        );
        assert_eq!((code, stdout.as_str()), (2, ""), "{err:?}");
        let (code, _) = run_mute(&repo, &["next"], &[], err);
        assert_eq!(code, 2, "{err:?}");
        repo.assert_unchanged(&before);

        // The --by / MOSAIC_AGENT_NAME warning cannot be printed; the op is written anyway.
        let (code, stdout) = run_mute(
            &repo,
            &[
                "note",
                "1",
                "warned",
                "--op",
                "darkwing-1-note",
                "--by",
                "darkwing",
            ],
            &[("MOSAIC_AGENT_NAME", "flicker")],
            err,
        );
        assert_eq!(
            (code, stdout.as_str()),
            (0, "ok darkwing-1-note rev 2 note 1\n"),
            "{err:?}"
        );
        assert_eq!(repo.row(1)["note"], "warned");

        // The exit-3 path: the receipt cannot be printed (stdout closed) nor the reason.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = command(
            &repo.root,
            &change(&["note", "1", "unseen"], "darkwing-1-note2", "darkwing"),
            &[],
        )
        .stdout(writer)
        .stderr(stderr_of(err))
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(3), "{err:?}");
        assert_eq!(repo.row(1)["note"], "unseen");
        // The retry prints the receipt from the log.
        let again = repo.run(
            &change(&["note", "1", "unseen"], "darkwing-1-note2", "darkwing"),
            &[],
        );
        assert_eq!(again.ok(), "ok darkwing-1-note2 rev 3 note 1\n");
    }
}

#[test]
fn help_that_cannot_be_written_fails_and_a_usage_error_keeps_its_code() {
    let repo = Repo::new("help");
    for err in [Stderr::Full, Stderr::ClosedPipe] {
        // A usage error whose message cannot be written is still exit 4.
        let (code, stdout) = run_mute(&repo, &["bogus-verb"], &[], err);
        assert_eq!((code, stdout.as_str()), (4, ""), "{err:?}");
        // Help is an answer: an unwritable stdout fails it, as it fails every answer.
        let out = command(&repo.root, &["--help"], &[])
            .stdout(stderr_of(err))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{err:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("mosaic-queue: cannot write to stdout: ")
                && stderr.lines().count() == 1,
            "{err:?}: {stderr}"
        );
    }
    // With a stdout to write to, the same help is printed whole.
    assert!(
        repo.run(&["--help"], &[]).ok().starts_with(
            "The team's git-native work queue: docs/plans/queue.json and its QUEUE.md table\n\nUsage: mosaic-queue [OPTIONS] <COMMAND>\n"
        )
    );
}

#[test]
fn git_missing_from_path_is_named() {
    let repo = Repo::new("no-git");
    let before = repo.snapshot();
    let empty = repo.base.join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    // Only the verbs that run git need it (the queue's own verbs read the repository
    // in-process: tests/e2e/cli_no_git.rs runs them with a git that records every call).
    for args in [
        vec!["commit", "-m", "queue: x", "--by", "jason"],
        vec!["install-hook", "--by", "jason"],
    ] {
        let out: Out = repo.run(&args, &[("PATH", empty.to_str().unwrap())]);
        assert_eq!(
            out.fails(1),
            "mosaic-queue: cannot run git: No such file or directory (os error 2); install git or put it on PATH, then retry",
            "{args:?}"
        );
    }
    repo.assert_unchanged(&before);
}

#[test]
fn a_checkout_path_with_a_newline_is_named_not_called_a_worktree() {
    let repo = Repo::bare("newline");
    let odd = repo.base.join("odd\ndir");
    std::fs::create_dir(&odd).unwrap();
    support::git(&odd, &["init", "-q", "-b", "main"]);
    let out = support::run_in(&odd, &["list"], &[]);
    assert_eq!(
        out.fails(2),
        format!(
            "mosaic-queue: the checkout's path {:?} holds a newline, which git's answers cannot carry; move the checkout to a path without one",
            odd
        )
        .replace('\n', "\\n")
    );
}

#[test]
fn a_queue_md_that_is_not_utf8_is_exit_2_from_every_verb() {
    let repo = Repo::new("not-utf8");
    let mut md = repo.read_bytes(QUEUE_MD);
    md.extend_from_slice(b"\xff\xfe\n");
    repo.write(QUEUE_MD, &md);
    let before = repo.snapshot();
    let line = "mosaic-queue: QUEUE.md is not UTF-8; restore it from git (`git checkout -- docs/plans/QUEUE.md`)";
    for args in [
        vec!["verify", "--current"],
        vec!["render"],
        vec!["render", "--check"],
        vec!["snapshot", "--out", "../snap"],
        change(&["note", "1", "x"], "darkwing-1-note", "darkwing"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
}
