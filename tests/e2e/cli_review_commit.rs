//! `review verify-commit ID REF` through the real binary: rows put in review with a manifest or
//! a commit candidate by `move ID in-review --candidate`, then REFs built with git plumbing
//! that match or differ in each way the check names. Every run leaves the queue files as is.

use std::path::Path;
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};
use support::{Repo, ok, run_in};

/// One change to a tree: a file with its content and mode, or a path removed.
enum Edit<'a> {
    Put(&'a str, &'a str, &'a str),
    Delete(&'a str),
}

use Edit::{Delete, Put};

/// Runs git at the root against the scratch index beside the repository.
fn plumb(repo: &Repo, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(&repo.root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .env("GIT_INDEX_FILE", repo.base.join("scratch-index"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

/// A commit of `parent`'s tree (or an empty one) with `edits` applied, made on a scratch
/// index so HEAD, the index and the working tree stay as they are.
fn commit(repo: &Repo, parent: Option<&str>, edits: &[Edit]) -> String {
    match parent {
        Some(p) => plumb(repo, &["read-tree", p]),
        None => plumb(repo, &["read-tree", "--empty"]),
    };
    for edit in edits {
        match edit {
            Put(path, content, mode) => {
                let file = repo.base.join("blob");
                std::fs::write(&file, content).unwrap();
                let blob = plumb(
                    repo,
                    &["hash-object", "-w", "--no-filters", file.to_str().unwrap()],
                );
                let info = format!("{mode},{blob},{path}");
                plumb(
                    repo,
                    &["update-index", "--add", "--replace", "--cacheinfo", &info],
                );
            }
            Delete(path) => {
                plumb(repo, &["update-index", "--force-remove", "--", path]);
            }
        }
    }
    let tree = plumb(repo, &["write-tree"]);
    let mut args = vec!["commit-tree", tree.as_str(), "-m", "scratch"];
    if let Some(p) = parent {
        args.extend(["-p", p]);
    }
    plumb(repo, &args)
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Moves row 2 (no reviewers, so its round posts nothing) to in-review on `candidate`, as
/// round `round` at revision `rev`; from queued on the first round.
fn review_row_2(repo: &Repo, candidate: &str, round: u32, rev: u32) {
    if round == 1 {
        ok(
            repo,
            &["move", "2", "in-progress"],
            "darkwing-2-start",
            "darkwing",
            &format!(
                "ok darkwing-2-start rev {} move 2 queued -> in-progress",
                rev - 1
            ),
        );
    }
    let op = format!("darkwing-2-review-{round}");
    ok(
        repo,
        &["move", "2", "in-review", "--candidate", candidate],
        &op,
        "darkwing",
        &format!("ok {op} rev {rev} move 2 in-progress -> in-review round {round}"),
    );
}

/// Runs verify-commit on row `id` and checks the queue files are untouched by it.
fn verify(repo: &Repo, dir: &Path, id: &str, reference: &str) -> support::Out {
    let before = repo.snapshot();
    let out = run_in(dir, &["review", "verify-commit", id, reference], &[]);
    repo.assert_unchanged(&before);
    out
}

const LIB: &str = "pub fn answer() -> u32 { 42 }\n";
const NOTE: &str = "Ça marche, with spaces.\n";
const TOOL: &str = "#!/bin/sh\necho tool\n";
const README: &str = "# Readme\n";

#[test]
fn a_manifest_candidate_checks_each_listed_path_by_content() {
    let repo = Repo::new("verify-manifest");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let good = commit(
        &repo,
        Some(&head),
        &[
            Put("src/lib.rs", LIB, "100644"),
            Put("docs/é t.md", NOTE, "100644"),
            Put("bin/tool.sh", TOOL, "100755"),
            Put("README.md", README, "100644"),
        ],
    );
    let manifest = format!(
        "{} src/lib.rs\n{} docs/é t.md\n{} bin/tool.sh\n{} README.md\n",
        sha256(LIB),
        sha256(NOTE),
        sha256(TOOL),
        sha256(README)
    );
    let manifest_file = repo.base.join("manifest.txt");
    std::fs::write(&manifest_file, &manifest).unwrap();
    review_row_2(&repo, manifest_file.to_str().unwrap(), 1, 3);
    let digest = format!("sha256:{}", sha256(&manifest));
    assert_eq!(repo.row(2)["review"]["rounds"][0]["candidate"], digest);
    let label = format!("row 2 round 1 {digest}");

    // A commit, its tree, and a branch naming it all match, from the root or a subdirectory.
    repo.git(&["branch", "good", &good]);
    let tree = repo.git(&["rev-parse", &format!("{good}^{{tree}}")]);
    for reference in [good.as_str(), tree.as_str(), "good"] {
        assert_eq!(
            verify(&repo, &repo.root, "2", reference).ok(),
            format!("ok verify-commit {label} matches {reference} (4 paths)\n")
        );
    }
    assert_eq!(
        verify(&repo, &repo.path("docs/plans"), "2", "good").ok(),
        format!("ok verify-commit {label} matches good (4 paths)\n")
    );
    // A manifest lists content only: a mode change and unlisted files do not matter.
    let moded = commit(
        &repo,
        Some(&good),
        &[
            Put("src/lib.rs", LIB, "100755"),
            Put("other.txt", "unlisted\n", "100644"),
        ],
    );
    assert_eq!(
        verify(&repo, &repo.root, "2", &moded).ok(),
        format!("ok verify-commit {label} matches {moded} (4 paths)\n")
    );

    let fails = |edits: &[Edit], wrong: &str| {
        let reference = commit(&repo, Some(&good), edits);
        assert_eq!(
            verify(&repo, &repo.root, "2", &reference).fails(1),
            format!("mosaic-queue: verify-commit {label} does not match {reference}: {wrong}")
        );
    };
    fails(
        &[Put(
            "src/lib.rs",
            "pub fn answer() -> u32 { 41 }\n",
            "100644",
        )],
        "1 of 4 paths: \"src/lib.rs\" (different content)",
    );
    fails(
        &[Delete("docs/é t.md")],
        "1 of 4 paths: \"docs/é t.md\" (missing)",
    );
    fails(
        &[
            Delete("bin/tool.sh"),
            Put("bin/tool.sh/inner", TOOL, "100755"),
        ],
        "1 of 4 paths: \"bin/tool.sh\" (a directory, not a file)",
    );
    // Every line wrong: the first three are named in manifest order, the rest counted.
    fails(
        &[
            Put("src/lib.rs", "", "100644"),
            Delete("docs/é t.md"),
            Put("bin/tool.sh", "#!/bin/sh\n", "100755"),
            Put("README.md", "# Readme!\n", "100644"),
        ],
        "4 of 4 paths: \"src/lib.rs\" (different content), \"docs/é t.md\" (missing), \
         \"bin/tool.sh\" (different content), and 1 more",
    );
}

#[test]
fn a_commit_candidate_checks_what_it_changed_by_blob_and_mode() {
    let repo = Repo::new("verify-commit");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let parent = commit(
        &repo,
        Some(&head),
        &[
            Put("keep.txt", "v1\n", "100644"),
            Put("gone.txt", "old\n", "100644"),
            Put("tool.sh", TOOL, "100644"),
            Put("dir/é x.txt", NOTE, "100644"),
        ],
    );
    // Modifies one path, adds one, deletes one and only changes the mode of one.
    let candidate = commit(
        &repo,
        Some(&parent),
        &[
            Put("keep.txt", "v2\n", "100644"),
            Put("new file.txt", "new\n", "100644"),
            Delete("gone.txt"),
            Put("tool.sh", TOOL, "100755"),
        ],
    );
    repo.git(&["branch", "cand", &candidate]);
    review_row_2(&repo, "cand", 1, 3);
    assert_eq!(
        repo.row(2)["review"]["rounds"][0]["candidate"],
        format!("git:{candidate}")
    );
    let label = format!("row 2 round 1 git:{candidate}");

    // The candidate itself, and a later commit that keeps those paths (and leaves the deleted
    // one absent) while changing others.
    let later = commit(
        &repo,
        Some(&candidate),
        &[
            Put("dir/é x.txt", "changed elsewhere\n", "100644"),
            Put("more.txt", "more\n", "100644"),
        ],
    );
    for reference in [candidate.as_str(), "cand", later.as_str()] {
        assert_eq!(
            verify(&repo, &repo.root, "2", reference).ok(),
            format!("ok verify-commit {label} matches {reference} (4 paths)\n")
        );
    }

    let fails = |edits: &[Edit], wrong: &str| {
        let reference = commit(&repo, Some(&later), edits);
        assert_eq!(
            verify(&repo, &repo.root, "2", &reference).fails(1),
            format!("mosaic-queue: verify-commit {label} does not match {reference}: {wrong}")
        );
    };
    fails(
        &[Put("new file.txt", "newer\n", "100644")],
        "1 of 4 paths: \"new file.txt\" (different content)",
    );
    fails(
        &[Put("keep.txt", "v2\n", "100755")],
        "1 of 4 paths: \"keep.txt\" (different mode 100755, candidate 100644)",
    );
    // The candidate's mode-only change counts: losing it is a mismatch.
    fails(
        &[Put("tool.sh", TOOL, "100644")],
        "1 of 4 paths: \"tool.sh\" (different mode 100644, candidate 100755)",
    );
    fails(
        &[Put("gone.txt", "old\n", "100644")],
        "1 of 4 paths: \"gone.txt\" (should be deleted)",
    );
    fails(
        &[Delete("keep.txt"), Put("keep.txt/x", "v2\n", "100644")],
        "1 of 4 paths: \"keep.txt\" (a directory, not a file)",
    );
    fails(
        &[Put("keep.txt", "v3\n", "100755")],
        "1 of 4 paths: \"keep.txt\" (different content and mode 100755, candidate 100644)",
    );

    // The candidate's parent differs in every path, in git's path order.
    assert_eq!(
        verify(&repo, &repo.root, "2", &parent).fails(1),
        format!(
            "mosaic-queue: verify-commit {label} does not match {parent}: 4 of 4 paths: \
             \"gone.txt\" (should be deleted), \"keep.txt\" (different content), \
             \"new file.txt\" (missing), and 1 more"
        )
    );
}

#[test]
fn a_root_commit_candidate_diffs_against_the_empty_tree_in_the_current_round() {
    let repo = Repo::new("verify-root");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let first = commit(&repo, Some(&head), &[Put("a.txt", "a\n", "100644")]);
    repo.git(&["branch", "first", &first]);
    review_row_2(&repo, "first", 1, 3);
    ok(
        &repo,
        &["move", "2", "in-progress", "--reason", "changes asked"],
        "darkwing-2-changes",
        "darkwing",
        "ok darkwing-2-changes rev 4 move 2 in-review -> in-progress",
    );
    let root = commit(
        &repo,
        None,
        &[
            Put("a.txt", "a\n", "100644"),
            Put("sub dir/b.txt", "b\n", "100644"),
        ],
    );
    repo.git(&["branch", "orphan", &root]);
    review_row_2(&repo, "orphan", 2, 5);
    let label = format!("row 2 round 2 git:{root}");

    assert_eq!(
        verify(&repo, &repo.root, "2", "orphan").ok(),
        format!("ok verify-commit {label} matches orphan (2 paths)\n")
    );
    // Round 2 is the one checked: round 1's commit lacks one of its paths.
    assert_eq!(
        verify(&repo, &repo.root, "2", "first").fails(1),
        format!(
            "mosaic-queue: verify-commit {label} does not match first: 1 of 2 paths: \
             \"sub dir/b.txt\" (missing)"
        )
    );
    assert_eq!(
        verify(&repo, &repo.root, "2", "HEAD").fails(1),
        format!(
            "mosaic-queue: verify-commit {label} does not match HEAD: 2 of 2 paths: \
             \"a.txt\" (missing), \"sub dir/b.txt\" (missing)"
        )
    );
}

#[test]
fn rows_refs_and_rounds_that_cannot_be_checked_refuse() {
    let repo = Repo::new("verify-refusals");
    let refused =
        |id: &str, reference: &str| verify(&repo, &repo.root, id, reference).fails(2).to_owned();
    assert_eq!(
        refused("1", "HEAD"),
        "mosaic-queue: row 1 has no review round; move it to in-review with --candidate FILE|REV first"
    );
    assert_eq!(
        refused("99", "HEAD"),
        "mosaic-queue: refused: no row 99 in the queue; `mosaic-queue list` shows the rows"
    );
    review_row_2(&repo, "HEAD", 1, 3);
    for reference in ["no-such-ref", "HEAD:docs/plans/QUEUE.md", "HEAD~9"] {
        assert_eq!(
            refused("2", reference),
            format!(
                "mosaic-queue: {reference:?} names no commit or tree here; pass a branch, tag, commit or tree id"
            )
        );
    }
}

/// The queue keeps only a commit candidate's id; once no ref keeps the commit and it is
/// collected, the check cannot run.
#[test]
fn a_commit_candidate_that_was_collected_refuses() {
    let repo = Repo::new("verify-collected");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let lost = commit(&repo, Some(&head), &[Put("lost.txt", "lost\n", "100644")]);
    repo.git(&["branch", "topic", &lost]);
    review_row_2(&repo, "topic", 1, 3);
    repo.git(&["branch", "-D", "topic"]);
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    let gone = Command::new("git")
        .args(["cat-file", "-e", &lost])
        .current_dir(&repo.root)
        .env_remove("GIT_DIR")
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!gone.success(), "gc removed the candidate commit");

    assert_eq!(
        verify(&repo, &repo.root, "2", "HEAD").fails(2),
        format!(
            "mosaic-queue: candidate commit {lost} of row 2 round 1 is not in this repository; \
             verify-commit needs that commit: fetch it or restore the branch or tag that kept it"
        )
    );
}
