//! What the CLI refuses, through the real binary: usage errors (exit 4), invalid values,
//! invalid changes and the canonical-checkout rules (exit 2), each with one line on stderr
//! and every queue file left exactly as it was.

use support::{Repo, run_in};

/// `args` plus `--op OP` and `--by BY`.
fn change<'a>(args: &[&'a str], op: &'a str, by: &'a str) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(["--op", op, "--by", by]);
    v
}

#[test]
fn usage_errors_exit_4_and_change_nothing() {
    let repo = Repo::new("usage");
    let before = repo.snapshot();
    // A command line of the wrong shape (no verb, an unknown verb or flag, a missing argument):
    // one line naming the slip and the help to read, exit 4, as with --json.
    for (args, line) in [
        (
            &[][..],
            "mosaic-queue: `mosaic-queue` needs a verb; `mosaic-queue --help` lists them",
        ),
        (
            &["frobnicate"],
            "mosaic-queue: unrecognized subcommand 'frobnicate'; see `mosaic-queue --help`",
        ),
        (
            &["list", "--bogus"],
            "mosaic-queue: unexpected argument '--bogus' found; see `mosaic-queue list --help`",
        ),
        (
            &["show"],
            "mosaic-queue: the following required arguments were not provided: <ID>; see `mosaic-queue show --help`",
        ),
        (
            &["move", "2"],
            "mosaic-queue: the following required arguments were not provided: --op <ID>, <STATUS>; see `mosaic-queue move --help`",
        ),
        (
            &["move", "2", "in-progress", "--by", "darkwing"],
            "mosaic-queue: the following required arguments were not provided: --op <ID>; see `mosaic-queue move --help`",
        ),
        (
            &["note", "2", "--op", "darkwing-2-note", "--by", "darkwing"],
            "mosaic-queue: the following required arguments were not provided: <TEXT>; see `mosaic-queue note --help`",
        ),
        (
            &["note", "2", "x", "--by", "darkwing", "--op"],
            "mosaic-queue: a value is required for '--op <ID>' but none was supplied; see `mosaic-queue note --help`",
        ),
        (
            &[
                "note",
                "2",
                "--op",
                "darkwing-2-note",
                "x",
                "y",
                "--by",
                "darkwing",
            ],
            "mosaic-queue: unexpected argument 'y' found; see `mosaic-queue note --help`",
        ),
        (
            &["review"],
            "mosaic-queue: `mosaic-queue review` needs a verb; `mosaic-queue review --help` lists them",
        ),
    ] {
        assert_eq!(repo.run(args, &[]).fails(4), line, "{args:?}");
    }
    assert_eq!(
        repo.run(&["note", "2", "x", "--op", "darkwing-2-note"], &[])
            .fails(4),
        "mosaic-queue: no actor: pass --by NAME or set MOSAIC_AGENT_NAME"
    );
    repo.assert_unchanged(&before);
}

#[test]
fn a_value_that_is_not_valid_is_invalid_data_whatever_its_spelling() {
    let repo = Repo::new("values");
    let before = repo.snapshot();
    let status = "mosaic-queue: refused: unknown status \"sideways\"; use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done";
    let row = "mosaic-queue: refused: row id \"-1\" is not a whole number; give digits, as in 12";
    for (args, line) in [
        (
            change(&["move", "2", "sideways"], "darkwing-2-start", "darkwing"),
            status,
        ),
        (
            vec![
                "move",
                "2",
                "--op",
                "darkwing-2-start",
                "--by",
                "darkwing",
                "--",
                "sideways",
            ],
            status,
        ),
        (
            change(
                &["move", "-1", "in-progress"],
                "darkwing-2-start",
                "darkwing",
            ),
            row,
        ),
        (
            vec![
                "move",
                "--op",
                "darkwing-2-start",
                "--by",
                "darkwing",
                "--",
                "-1",
                "in-progress",
            ],
            row,
        ),
        (
            change(
                &["set", "1", "colour", "red"],
                "darkwing-1-colour",
                "darkwing",
            ),
            "mosaic-queue: refused: unknown field \"colour\"; use piece, gate, issues, closes, reviewers, brief or after",
        ),
        (
            change(
                &["set", "1", "issues", "12,twelve"],
                "darkwing-1-issues",
                "darkwing",
            ),
            "mosaic-queue: refused: issues \"twelve\" is not a whole number; give digits, as in 12",
        ),
        (
            change(
                &["move", "2", "done", "--evidence", "comment=1"],
                "darkwing-2-done",
                "darkwing",
            ),
            "mosaic-queue: refused: --evidence \"comment=1\" is not evidence; write comment=<id>,round=<n>,candidate=<digest>",
        ),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
}

#[test]
fn help_and_version_exit_0() {
    let repo = Repo::new("help");
    for args in [
        &["--help"][..],
        &["help"],
        &["move", "--help"],
        &["help", "set"],
        &["--version"],
    ] {
        let out = repo.run(args, &[]);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    let out = repo.run(&["--help"], &[]);
    for verb in [
        "list", "show", "next", "add", "move", "note", "set", "verify",
    ] {
        assert!(out.stdout.contains(verb), "--help names {verb}");
    }
}

#[test]
fn invalid_changes_leave_every_file_as_it_was() {
    let repo = Repo::new("invalid");
    let out = repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    out.ok();
    let before = repo.snapshot();
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (
            &["move", "1", "done"],
            "darkwing-1-done",
            "darkwing",
            "refused: row 1 cannot move from queued to done; see docs/transitions.md",
        ),
        (
            &["move", "2", "in-progress"],
            "darkwing-2-again",
            "darkwing",
            "refused: row 2 is already in-progress (owner darkwing)",
        ),
        (
            &["move", "2", "blocked"],
            "darkwing-2-block",
            "darkwing",
            "refused: moving row 2 to blocked needs --reason TEXT",
        ),
        (
            &["move", "2", "in-review"],
            "darkwing-2-review",
            "darkwing",
            "refused: moving row 2 to in-review needs --candidate FILE|REV",
        ),
        (
            &["move", "2", "in-review", "--candidate", "no-such-ref"],
            "darkwing-2-review",
            "darkwing",
            "--candidate \"no-such-ref\" is neither a manifest file nor a commit",
        ),
        (
            &["release", "2"],
            "zed-2-release",
            "zed",
            "refused: zed may not release row 2: the owner, jason or sage",
        ),
        (
            &["note", "1", "a <b> tag"],
            "lead-1-note",
            "lead",
            "refused: note contains `<`, which would start raw HTML in the table",
        ),
        (
            &["note", "1", "C:\\path"],
            "lead-1-note",
            "lead",
            "refused: note contains `\\`, which the table cannot show safely",
        ),
        (
            &["set", "1", "piece", "x<y"],
            "lead-1-piece",
            "lead",
            "refused: piece contains `<`, which would start raw HTML in the table",
        ),
        (
            &["note", "1", "token abcdefghijklmnopqrstuvwxyz0123"],
            "lead-1-note",
            "lead",
            "refused: note looks like it holds a credential (a token after the word token or bearer); the log is committed to git forever, so leave secrets out",
        ),
        (
            &["note", "1", "ok text"],
            "Bad-Op",
            "lead",
            "refused: op id \"Bad-Op\" is invalid: use 8 to 72 characters of [a-z0-9._-], starting with a letter or digit, not ending in .outcome",
        ),
        (
            &["note", "1", "ok text"],
            "lead-1-note.outcome",
            "lead",
            "refused: op id \"lead-1-note.outcome\" is invalid: use 8 to 72 characters of [a-z0-9._-], starting with a letter or digit, not ending in .outcome",
        ),
        (
            &["note", "9", "ok text"],
            "lead-9-note",
            "lead",
            "refused: no row 9 in the queue; `mosaic-queue list` shows the rows",
        ),
        (
            &["note", "1", "ok text"],
            "zed-1-note",
            "zed",
            "refused: zed may not note row 1: the owner, a listed reviewer, the lead, jason or sage only",
        ),
        (
            &["add", "--piece", "Mine"],
            "darkwing-add-0001",
            "darkwing",
            "refused: darkwing may not add rows: the lead, jason or sage only",
        ),
        (
            &["set", "2", "closes", "21", "--reason", "x"],
            "darkwing-2-closes",
            "darkwing",
            "refused: closes must be a subset of the row's issues (#20); not listed: #21",
        ),
    ];
    for (args, op, by, line) in cases {
        let out = repo.run(&change(args, op, by), &[]);
        assert_eq!(out.fails(2), format!("mosaic-queue: {line}"), "{args:?}");
        repo.assert_unchanged(&before);
    }
    // A refused op id is not used up: the same op with valid arguments goes through.
    let out = repo.run(
        &change(&["note", "1", "ok text"], "lead-1-note", "lead"),
        &[],
    );
    assert_eq!(out.ok(), "ok lead-1-note rev 3 note 1\n");
}

#[test]
fn mutating_verbs_refuse_until_genesis_is_committed() {
    let repo = Repo::bare("uncommitted");
    repo.genesis().ok();
    let before = repo.snapshot();
    let out = repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: genesis not committed: commit docs/plans/queue.json with `mosaic-queue commit --genesis -m MSG` first"
    );
    repo.assert_unchanged(&before);
    // Reads and verify do not need the commit.
    repo.run(&["list"], &[]).ok();
    repo.run(&["verify", "--current"], &[]).ok();
    repo.commit("queue genesis");
    let out = repo.run(
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n"
    );
}

#[test]
fn genesis_runs_once() {
    let repo = Repo::new("genesis-twice");
    let before = repo.snapshot();
    let receipt = repo.queue()["log"][0]["receipt"]
        .as_str()
        .unwrap()
        .to_owned();
    // The same op again is a retry: the original receipt, nothing written.
    assert_eq!(repo.genesis().ok(), format!("{receipt}\n"));
    repo.assert_unchanged(&before);
    // Another op, or another actor, refuses.
    let map = repo.map_path();
    for (op, by) in [("genesis-0002", "jason"), ("genesis-0001", "sage")] {
        assert_eq!(
            repo.run(
                &[
                    "genesis",
                    "--map",
                    map.to_str().unwrap(),
                    "--op",
                    op,
                    "--by",
                    by
                ],
                &[]
            )
            .fails(2),
            "mosaic-queue: docs/plans/queue.json exists already; genesis runs once (see Manual recovery for a broken file)"
        );
    }
    repo.assert_unchanged(&before);
}

#[test]
fn git_environment_variables_refuse() {
    let repo = Repo::new("git-env");
    let before = repo.snapshot();
    let git_dir = repo.path(".git");
    let git_dir = git_dir.to_str().unwrap();
    let root = repo.root.to_str().unwrap();
    for (var, value) in [
        ("GIT_DIR", git_dir),
        ("GIT_WORK_TREE", root),
        ("GIT_COMMON_DIR", git_dir),
    ] {
        let line = format!(
            "mosaic-queue: {var} is set; unset it: the queue runs only in its canonical checkout's own .git"
        );
        for args in [
            vec!["list"],
            vec!["verify"],
            change(&["note", "1", "x"], "lead-1-note", "lead"),
        ] {
            let out = repo.run(&args, &[(var, value)]);
            assert_eq!(out.fails(2), line, "{var} {args:?}");
        }
    }
    repo.assert_unchanged(&before);
}

#[test]
fn a_linked_worktree_refuses() {
    let repo = Repo::new("worktree");
    let wt = repo.base.join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    let before = repo.snapshot();
    let wt_before = std::fs::read(wt.join("docs/plans/queue.json")).unwrap();
    let line = format!(
        "mosaic-queue: {} is a linked worktree or uses a separate git dir; run the queue from the canonical checkout",
        wt.display()
    );
    for args in [
        vec!["list"],
        vec!["render"],
        change(&["note", "1", "x"], "lead-1-note", "lead"),
    ] {
        assert_eq!(run_in(&wt, &args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
    assert_eq!(
        std::fs::read(wt.join("docs/plans/queue.json")).unwrap(),
        wt_before
    );
}

#[test]
fn another_branch_refuses() {
    let repo = Repo::new("branch");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let before = repo.snapshot();
    let line =
        "mosaic-queue: HEAD is not on the genesis branch main (feature); check out main first";
    for args in [
        vec!["list"],
        vec!["verify"],
        change(&["note", "1", "x"], "lead-1-note", "lead"),
    ] {
        assert_eq!(repo.run(&args, &[]).fails(2), line, "{args:?}");
    }
    repo.git(&["checkout", "-q", "--detach", "main"]);
    assert_eq!(
        repo.run(&["list"], &[]).fails(2),
        "mosaic-queue: HEAD is not on the genesis branch main (detached HEAD); check out main first"
    );
    repo.assert_unchanged(&before);
    repo.git(&["checkout", "-q", "main"]);
    repo.run(&["list"], &[]).ok();
}

#[test]
fn a_copy_of_the_checkout_is_not_the_canonical_root() {
    let repo = Repo::new("copy");
    let copy = repo.base.join("copy");
    let status = std::process::Command::new("cp")
        .args(["-a", repo.root.to_str().unwrap(), copy.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let copy_queue = std::fs::read(copy.join("docs/plans/queue.json")).unwrap();
    let line = format!(
        "mosaic-queue: this checkout ({}) is not the canonical root {} recorded at genesis; run the queue there",
        copy.display(),
        repo.root.display()
    );
    for args in [
        vec!["list"],
        vec!["verify"],
        change(&["note", "1", "x"], "lead-1-note", "lead"),
    ] {
        assert_eq!(run_in(&copy, &args, &[]).fails(2), line, "{args:?}");
    }
    assert_eq!(
        std::fs::read(copy.join("docs/plans/queue.json")).unwrap(),
        copy_queue
    );
    assert!(!copy.join(".git/mosaic-queue.lock").exists());
    // The original is untouched by all that.
    repo.run(&["verify", "--current"], &[]).ok();
}

#[test]
fn a_symlink_to_the_root_works() {
    let repo = Repo::new("symlink");
    let link = repo.base.join("link");
    std::os::unix::fs::symlink(&repo.root, &link).unwrap();
    assert_eq!(
        run_in(&link, &["show", "2"], &[]).ok(),
        repo.run(&["show", "2"], &[]).ok()
    );
    let out = run_in(
        &link,
        &change(
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-2-start rev 2 move 2 queued -> in-progress\n"
    );
    // So does a subdirectory of the root, through the link.
    let out = run_in(
        &link.join("docs/plans"),
        &change(
            &["note", "2", "from a subdirectory"],
            "darkwing-2-note",
            "darkwing",
        ),
        &[],
    );
    assert_eq!(out.ok(), "ok darkwing-2-note rev 3 note 2\n");
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 3 (3 entries, witness rev 3), table current\n"
    );
}

#[test]
fn outside_any_checkout_refuses() {
    let repo = Repo::new("outside");
    let out = run_in(&repo.base, &["list"], &[]);
    let line = out.fails(2);
    assert!(
        line.starts_with("mosaic-queue: not inside a git checkout (")
            && line.ends_with("); run the queue from the canonical checkout"),
        "{line}"
    );
}
