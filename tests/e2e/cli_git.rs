//! The git side through the real binary: the pre-commit guard (alone, on a temporary index,
//! and as the hook `install-hook` installs under a real `git commit`), install-hook's
//! refusals, map-check's drift report, and the demo's installed guard.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use support::{MAP_TABLE, Repo, run_in};

const HOOK_TEMPLATE: &str = include_str!("../../host/scripts/git-hooks/pre-commit");
const HOOK: &str = ".git/hooks/pre-commit";

fn refused(path: &str) -> String {
    format!(
        "mosaic-queue: refused: {path} is staged (its index entry differs from HEAD's): the queue is committed only by `mosaic-queue commit`; unstage it with `git reset -q -- {path}`"
    )
}

const BOTH_REFUSED: &str = "mosaic-queue: refused: docs/plans/queue.json and docs/plans/QUEUE.md are staged (their index entries differ from HEAD's): the queue is committed only by `mosaic-queue commit`; unstage them with `git reset -q -- docs/plans/queue.json docs/plans/QUEUE.md`";

/// Runs git in `dir` with `env` (the harness's `git` clears everything): a real commit needs
/// MOSAIC_QUEUE_BIN for the hook, a temporary index needs GIT_INDEX_FILE.
fn git_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir);
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "MOSAIC_QUEUE_BIN",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

/// A note on row 1: queue.json and QUEUE.md now differ from HEAD's in the working tree.
fn change_queue(repo: &Repo, op: &str) {
    repo.run(
        &["note", "1", "changed", "--op", op, "--by", "darkwing"],
        &[],
    )
    .ok();
}

fn sha12(bytes: &[u8]) -> String {
    let out = Command::new("sha256sum")
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(bytes)?;
            c.wait_with_output()
        })
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..12].to_owned()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

// ---- guard ----

#[test]
fn guard_passes_clean_and_refuses_each_staged_queue_file() {
    let repo = Repo::new("guard-staged");
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
    // Changed in the working tree but not staged: still clean.
    change_queue(&repo, "darkwing-1-note-1");
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");

    let before = repo.snapshot();
    repo.git(&["add", "docs/plans/queue.json"]);
    assert_eq!(
        repo.run(&["guard"], &[]).fails(2),
        refused("docs/plans/queue.json")
    );
    repo.git(&["reset", "-q"]);
    repo.git(&["add", "docs/plans/QUEUE.md"]);
    assert_eq!(
        repo.run(&["guard"], &[]).fails(2),
        refused("docs/plans/QUEUE.md")
    );
    repo.git(&["add", "docs/plans"]);
    assert_eq!(repo.run(&["guard"], &[]).fails(2), BOTH_REFUSED);
    repo.assert_unchanged(&before);

    // A removal counts: the entry is gone from the index but not from HEAD.
    repo.git(&["reset", "-q"]);
    repo.git(&["rm", "-q", "--cached", "docs/plans/QUEUE.md"]);
    assert_eq!(
        repo.run(&["guard"], &[]).fails(2),
        refused("docs/plans/QUEUE.md")
    );
    // From a subdirectory, as `git commit` run there would.
    assert_eq!(
        run_in(&repo.path("docs"), &["guard"], &[]).fails(2),
        refused("docs/plans/QUEUE.md")
    );
    repo.git(&["reset", "-q"]);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
    repo.assert_unchanged(&before);
}

#[test]
fn guard_before_the_first_commit_and_outside_a_work_tree() {
    let repo = Repo::bare("guard-unborn");
    let fresh = repo.base.join("fresh");
    std::fs::create_dir_all(fresh.join("docs/plans")).unwrap();
    support::git(&fresh, &["init", "-q", "-b", "main"]);
    // HEAD has no entries yet: nothing staged passes, an added queue file does not.
    assert_eq!(run_in(&fresh, &["guard"], &[]).ok(), "");
    std::fs::write(fresh.join("README"), "x\n").unwrap();
    support::git(&fresh, &["add", "README"]);
    assert_eq!(run_in(&fresh, &["guard"], &[]).ok(), "");
    std::fs::write(fresh.join("docs/plans/queue.json"), "{}\n").unwrap();
    support::git(&fresh, &["add", "docs/plans/queue.json"]);
    assert_eq!(
        run_in(&fresh, &["guard"], &[]).fails(2),
        refused("docs/plans/queue.json")
    );

    let line = run_in(&repo.base, &["guard"], &[]).fails(2).to_owned();
    assert!(
        line.starts_with("mosaic-queue: not inside a git work tree (")
            && line.ends_with("); the guard runs as the pre-commit hook"),
        "{line}"
    );
}

#[test]
fn guard_judges_the_index_git_index_file_names() {
    let repo = Repo::new("guard-index");
    change_queue(&repo, "darkwing-1-note-1");
    // A temporary index with HEAD's entries, then queue.json's new bytes staged in it only.
    let env = [("GIT_INDEX_FILE", ".git/canary-index")];
    for args in [
        &["read-tree", "HEAD"][..],
        &["update-index", "--add", "docs/plans/queue.json"][..],
    ] {
        assert!(git_env(&repo.root, args, &env).status.success());
    }
    assert_eq!(
        repo.run(&["guard"], &[]).ok(),
        "",
        "the shared index is clean"
    );
    let before = repo.snapshot();
    // Relative, as git hands it to a hook (resolved from the top level, even from below it).
    assert_eq!(
        repo.run(&["guard"], &env).fails(2),
        refused("docs/plans/queue.json")
    );
    assert_eq!(
        run_in(&repo.path("docs/plans"), &["guard"], &env).fails(2),
        refused("docs/plans/queue.json")
    );
    let abs = repo.path(".git/canary-index");
    assert_eq!(
        repo.run(&["guard"], &[("GIT_INDEX_FILE", abs.to_str().unwrap())])
            .fails(2),
        refused("docs/plans/queue.json")
    );
    repo.assert_unchanged(&before);
    // And the other way round: the shared index staged, the temporary one clean.
    assert!(
        git_env(&repo.root, &["read-tree", "HEAD"], &env)
            .status
            .success()
    );
    repo.git(&["add", "docs/plans/queue.json"]);
    assert_eq!(repo.run(&["guard"], &env).ok(), "");
}

// ---- install-hook and the hook under git commit ----

/// A checkout that ships the hook script, committed (before any hook is installed).
fn with_hook_script(name: &str) -> Repo {
    let repo = Repo::new(name);
    std::fs::create_dir_all(repo.path("scripts/git-hooks")).unwrap();
    repo.write("scripts/git-hooks/pre-commit", HOOK_TEMPLATE);
    repo.git(&["add", "scripts"]);
    repo.git(&["commit", "-q", "-m", "the guard script"]);
    repo
}

#[test]
fn install_hook_installs_the_script_and_git_commit_runs_it() {
    let repo = with_hook_script("hook-commit");
    let out = repo.run(&["install-hook", "--by", "jason"], &[]);
    assert_eq!(
        out.ok(),
        format!(
            "ok install-hook .git/hooks/pre-commit ({})\n",
            sha12(HOOK_TEMPLATE.as_bytes())
        )
    );
    assert_eq!(repo.read(HOOK), HOOK_TEMPLATE);
    assert_eq!(mode(&repo.path(HOOK)), 0o755);
    // Again, by sage through MOSAIC_AGENT_NAME: the same bytes replace the hook.
    repo.run(&["install-hook"], &[("MOSAIC_AGENT_NAME", "sage")])
        .ok();
    assert_eq!(repo.read(HOOK), HOOK_TEMPLATE);

    let env = [("MOSAIC_QUEUE_BIN", support::bin())];
    let head = repo.git(&["rev-parse", "HEAD"]);
    // An unrelated commit passes the guard.
    repo.write("README", "hello\n");
    repo.git(&["add", "README"]);
    let out = git_env(&repo.root, &["commit", "-q", "-m", "readme"], &env);
    assert!(out.status.success(), "{out:?}");
    let head = {
        assert_ne!(repo.git(&["rev-parse", "HEAD"]), head);
        repo.git(&["rev-parse", "HEAD"])
    };

    // A plain commit of the queue is refused by the hook and nothing is committed.
    change_queue(&repo, "darkwing-1-note-1");
    repo.git(&["add", "docs/plans"]);
    let out = git_env(&repo.root, &["commit", "-q", "-m", "sneak"], &env);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{BOTH_REFUSED}\n")
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    // `git commit -a`-style partial commits go through a temporary index: refused as well.
    repo.git(&["reset", "-q"]);
    let out = git_env(
        &repo.root,
        &["commit", "-q", "-m", "sneak", "--", "docs/plans/QUEUE.md"],
        &env,
    );
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{}\n", refused("docs/plans/QUEUE.md"))
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);

    // --no-verify skips every hook: outside the guard (docs/decisions.md, Git integration).
    repo.git(&["add", "docs/plans"]);
    let out = git_env(
        &repo.root,
        &["commit", "-q", "--no-verify", "-m", "bypass"],
        &env,
    );
    assert!(out.status.success(), "{out:?}");
    assert_ne!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.run(&["guard"], &[]).ok(), "");
}

#[test]
fn install_hook_refuses_and_writes_nothing() {
    let repo = Repo::new("hook-refusals");
    let hook = repo.path(HOOK);
    assert_eq!(
        repo.run(&["install-hook", "--by", "darkwing"], &[])
            .fails(2),
        "mosaic-queue: refused: darkwing may not install the guard: jason or sage only"
    );
    let line = repo
        .run(&["install-hook", "--by", "jason"], &[])
        .fails(2)
        .to_owned();
    assert!(
        line.starts_with(
            "mosaic-queue: refused: there is no scripts/git-hooks/pre-commit in this checkout ("
        ),
        "{line}"
    );
    assert!(!hook.exists());

    // A symlink to a script elsewhere would install something the checkout does not ship.
    std::fs::create_dir_all(repo.path("scripts/git-hooks")).unwrap();
    let elsewhere = repo.base.join("other-hook");
    std::fs::write(&elsewhere, HOOK_TEMPLATE).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.path("scripts/git-hooks/pre-commit")).unwrap();
    assert_eq!(
        repo.run(&["install-hook", "--by", "jason"], &[]).fails(2),
        "mosaic-queue: refused: scripts/git-hooks/pre-commit is not a regular file (a symlink or directory would install something else); restore it from git"
    );
    assert!(!hook.exists());

    std::fs::remove_file(repo.path("scripts/git-hooks/pre-commit")).unwrap();
    repo.write("scripts/git-hooks/pre-commit", HOOK_TEMPLATE);
    repo.git(&["config", "core.hooksPath", "elsewhere"]);
    assert_eq!(
        repo.run(&["install-hook", "--by", "jason"], &[]).fails(2),
        "mosaic-queue: refused: core.hooksPath is set (file:.git/config elsewhere), so git would not run .git/hooks/pre-commit; unset it in every scope first"
    );
    repo.git(&["config", "--unset", "core.hooksPath"]);
    // Set for this process only, as `git -c` would pass it on.
    assert_eq!(
        repo.run(
            &["install-hook", "--by", "jason"],
            &[("GIT_CONFIG_PARAMETERS", "'core.hookspath'='/tmp/x'")]
        )
        .fails(2),
        "mosaic-queue: refused: core.hooksPath is set (command line: /tmp/x), so git would not run .git/hooks/pre-commit; unset it in every scope first"
    );
    assert!(!hook.exists());
    repo.run(&["install-hook", "--by", "jason"], &[]).ok();
    assert!(hook.exists());
}

// ---- map-check ----

/// QUEUE.md whose table is the map's rows (lines 6 to 10), as before genesis.
const TABLE_MD: &str = "# Queue

Header.

<!-- mosaic-queue:begin -->
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued | | #12, #14 | first |
| 2 | Render | | queued | jason | #20 | |
| 3 | Old thing | sage | parked | | | later |
<!-- mosaic-queue:end -->
";

/// A checkout before genesis whose map was built from the committed `TABLE_MD`.
fn mapped(name: &str) -> Repo {
    Repo::bare_with(name, TABLE_MD, "the table with the map's columns")
}

/// map-check with QUEUE.md edited from `TABLE_MD` by `edit`: (exit, stdout, stderr).
fn check_after(repo: &Repo, old: &str, new: &str) -> (i32, String, String) {
    assert!(TABLE_MD.contains(old));
    repo.write("docs/plans/QUEUE.md", TABLE_MD.replacen(old, new, 1));
    let before = repo.snapshot();
    let map = repo.map_path();
    let out = repo.run(&["map-check", "--map", map.to_str().unwrap()], &[]);
    repo.assert_unchanged(&before);
    (out.code, out.stdout, out.stderr)
}

#[test]
fn map_check_reports_no_drift() {
    let repo = mapped("map-clean");
    let map = repo.map_path();
    assert_eq!(
        repo.run(&["map-check", "--map", map.to_str().unwrap()], &[])
            .ok(),
        "ok map-check: no drift\n"
    );
}

#[test]
fn map_check_reports_each_kind_of_drift() {
    let repo = mapped("map-drift");
    let row1 = "| 1 | Parser | darkwing | queued | | #12, #14 | first |";
    let row2 = "| 2 | Render | | queued | jason | #20 | |";
    let row3 = "| 3 | Old thing | sage | parked | | | later |\n";

    // A table line changed in a column the rows do not compare: the line alone.
    let noted = "| 1 | Parser | darkwing | queued | | #12, #14 | first, really |";
    assert_eq!(
        check_after(&repo, row1, noted),
        (
            2,
            format!("- line 8: {row1}\n+ line 8: {noted}\n"),
            "mosaic-queue: map-check: 2 drifting lines, 0 drifting rows\n".to_owned()
        )
    );

    // Piece, owner and issues of one row.
    let changed = "| 2 | Rendering | flicker | queued | jason | #21, #20 | |";
    assert_eq!(
        check_after(&repo, row2, changed),
        (
            2,
            format!(
                "- line 9: {row2}\n+ line 9: {changed}\n\
                 row 2 piece: map \"Render\", table \"Rendering\"\n\
                 row 2 owner: map \"(none)\", table \"flicker\"\n\
                 row 2 issues: map \"#20\", table \"#20, #21\"\n"
            ),
            "mosaic-queue: map-check: 2 drifting lines, 3 drifting rows\n".to_owned()
        )
    );

    // A row added.
    let added = "| 4 | New thing | | queued | | #30 | |\n";
    assert_eq!(
        check_after(&repo, row3, &format!("{row3}{added}")),
        (
            2,
            format!(
                "+ line 11: {}\nrow 4 row: map \"(missing)\", table \"New thing\"\n",
                added.trim_end()
            ),
            "mosaic-queue: map-check: 1 drifting lines, 1 drifting rows\n".to_owned()
        )
    );

    // A row removed.
    assert_eq!(
        check_after(&repo, row3, ""),
        (
            2,
            format!(
                "- line 10: {}\nrow 3 row: map \"Old thing\", table \"(missing)\"\n",
                row3.trim_end()
            ),
            "mosaic-queue: map-check: 1 drifting lines, 1 drifting rows\n".to_owned()
        )
    );
}

#[test]
fn map_check_refuses_a_map_naming_a_missing_blob() {
    let repo = mapped("map-noblob");
    let map = repo.base.join("other-map.md");
    let missing = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(
        &map,
        format!("source: docs/plans/QUEUE.md blob {missing}\n\n{MAP_TABLE}"),
    )
    .unwrap();
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&["map-check", "--map", map.to_str().unwrap()], &[])
            .fails(2),
        format!(
            "mosaic-queue: the map names QUEUE.md blob {missing} but this repository has no such blob; rebuild the map from a committed QUEUE.md"
        )
    );
    std::fs::write(&map, "no source line\n").unwrap();
    assert_eq!(
        repo.run(&["map-check", "--map", map.to_str().unwrap()], &[])
            .fails(2),
        format!(
            "mosaic-queue: the map {}: no `source: docs/plans/QUEUE.md blob <40 hex>` line",
            map.display()
        )
    );
    repo.assert_unchanged(&before);
}

// ---- demo ----

#[test]
fn demo_installs_the_guard_it_ships() {
    let out = run_in(Path::new("/"), &["demo"], &[]);
    let stdout = out.ok().to_owned();
    let dir = std::path::PathBuf::from(
        stdout
            .lines()
            .next()
            .unwrap()
            .strip_prefix("demo checkout: ")
            .unwrap(),
    );
    struct Cleanup<'a>(&'a Path);
    impl Drop for Cleanup<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0);
        }
    }
    let _cleanup = Cleanup(&dir);
    assert_eq!(
        std::fs::read_to_string(dir.join(HOOK)).unwrap(),
        HOOK_TEMPLATE
    );
    assert_eq!(mode(&dir.join(HOOK)), 0o755);
    assert_eq!(
        support::git(&dir, &["ls-files", "-s", "scripts"]),
        format!(
            "100755 {} 0\tscripts/git-hooks/pre-commit\n100755 {} 0\tscripts/queue-commit.sh",
            support::git(&dir, &["hash-object", "scripts/git-hooks/pre-commit"]),
            support::git(&dir, &["hash-object", "scripts/queue-commit.sh"]),
        )
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("scripts/queue-commit.sh")).unwrap(),
        include_str!("../../host/scripts/queue-commit.sh")
    );
    assert!(stdout.contains(&format!(
        "$ mosaic-queue install-hook --by jason\nok install-hook .git/hooks/pre-commit ({})\n",
        sha12(HOOK_TEMPLATE.as_bytes())
    )));
    assert_eq!(
        run_in(&dir, &["verify", "--current"], &[]).ok(),
        "ok verify rev 7 (7 entries, witness rev 7), table current\n"
    );
    // The demo's ops after genesis are not committed; staging them trips the guard.
    assert_eq!(run_in(&dir, &["guard"], &[]).ok(), "");
    support::git(&dir, &["add", "docs/plans"]);
    assert_eq!(run_in(&dir, &["guard"], &[]).fails(2), BOTH_REFUSED);
}
