//! The CI recipe (docs/ci.md): `host/scripts/ci/queue-snapshot-check.sh` on scratch checkouts.
//! HEAD's committed queue files, unpacked outside any repository, pass against their base when
//! the log extends it, and fail with exit 2 and one line naming what differs when HEAD's files
//! were tampered with; the workflow file docs/ci.md shows is the one in the repository.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::{Repo, ok};

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ci")
}

/// Runs the recipe's script at the checkout's top level against `base`, with the binary under
/// test: (exit code, stdout, stderr).
fn check(repo: &Repo, base: &str) -> (Option<i32>, String, String) {
    let out = Command::new("bash")
        .arg(scripts().join("queue-snapshot-check.sh"))
        .current_dir(&repo.root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &repo.base)
        .env("TMPDIR", &repo.base)
        .env("BASE", base)
        .env("MOSAIC_QUEUE_BIN", support::bin())
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A checkout whose HEAD adds one note to the committed genesis; returns it and the base.
fn noted(name: &str) -> (Repo, String) {
    let repo = Repo::new(name);
    let base = repo.git(&["rev-parse", "HEAD"]);
    ok(
        &repo,
        &["note", "1", "reviewed the plan"],
        "jason-note-0001",
        "jason",
        "ok jason-note-0001 rev 2 note 1",
    );
    repo.commit("queue: a note");
    (repo, base)
}

#[test]
fn a_snapshot_that_extends_its_base_passes() {
    let (repo, base) = noted("ci-good");
    let (code, stdout, stderr) = check(&repo, &base);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (
            Some(0),
            "ok verify --snapshot rev 2 (extends base rev 1)\n",
            ""
        )
    );
    // An empty base (a new branch's first push) means HEAD's first parent: the same answer.
    assert_eq!(check(&repo, "").1, stdout);
    assert_eq!(check(&repo, &"0".repeat(40)).1, stdout);
}

#[test]
fn a_hand_edited_table_fails_naming_the_table() {
    let (repo, base) = noted("ci-table");
    let md = repo.read("docs/plans/QUEUE.md");
    repo.write(
        "docs/plans/QUEUE.md",
        md.replacen("reviewed the plan", "approved", 1),
    );
    repo.git(&["commit", "-q", "-a", "-m", "QUEUE.md by hand"]);
    let (code, stdout, stderr) = check(&repo, &base);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        stderr,
        "mosaic-queue: snapshot QUEUE.md's table is not a render of its queue.json\n"
    );
}

#[test]
fn a_snapshot_that_drops_the_bases_ops_fails_naming_them() {
    let (repo, _) = noted("ci-rollback");
    let noted = repo.git(&["rev-parse", "HEAD"]);
    ok(
        &repo,
        &["note", "2", "second look"],
        "jason-note-0002",
        "jason",
        "ok jason-note-0002 rev 3 note 2",
    );
    repo.commit("queue: another note");
    let base = repo.git(&["rev-parse", "HEAD"]);
    // HEAD puts back the files of the commit before: valid on their own, one op short.
    repo.git(&["checkout", &noted, "--", "docs/plans"]);
    repo.git(&["commit", "-q", "-m", "queue files from before"]);
    let (code, stdout, stderr) = check(&repo, &base);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // The base is named by where the script put it, under the scratch temp dir.
    let line = stderr
        .strip_prefix("mosaic-queue: the snapshot (rev 2) is behind the base ")
        .and_then(|rest| rest.strip_suffix("/base.json (rev 3): history was lost\n"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.starts_with(&format!("{}/queue-snapshot.", repo.base.display())),
        "{line}"
    );
}

#[test]
fn the_workflow_in_the_docs_is_the_file_to_copy() {
    let yml = std::fs::read_to_string(scripts().join("queue-snapshot.yml")).unwrap();
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ci.md"))
        .unwrap();
    assert!(
        doc.contains(&format!("```yaml\n{yml}```\n")),
        "docs/ci.md must show host/scripts/ci/queue-snapshot.yml verbatim"
    );
    assert!(yml.contains("run: bash scripts/queue-snapshot-check.sh"));
}
