//! The key's policy on commands as the gate reads them (lexed, parsed by the command line's
//! grammar, translated into requests), in a checkout that holds the files `manifest.txt` and
//! `docs/plans/queue.json` and nothing else.

use std::sync::OnceLock;

use super::*;
use crate::command::help;

/// The checkout the judged commands' paths start from, made once for the tests.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gate-judge-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs/plans")).unwrap();
        std::fs::write(dir.join("manifest.txt"), "x").unwrap();
        std::fs::write(dir.join("docs/plans/queue.json"), "{}").unwrap();
        dir
    })
}

fn judge(seat: &str, line: &str) -> Result<(), GateError> {
    let words = super::lexer::split(line).unwrap();
    let cli = help::parse_from(std::iter::once("mosaic-queue".to_owned()).chain(words))
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    let policy = Policy::remote(seat.to_owned(), root().to_owned());
    match super::judge(seat, cli.verb)? {
        Some(request) => Ok(policy.admit(&request)?),
        None => Ok(()),
    }
}

fn refused(seat: &str, line: &str) -> (&'static str, String) {
    match judge(seat, line) {
        Ok(()) => panic!("{seat}: {line:?} was let through"),
        Err(e) => (e.kind(), e.to_string()),
    }
}

const OP: &str = "--op darkwing-op-0001";

#[test]
fn a_seat_runs_its_verbs_as_itself() {
    for line in [
        "list",
        "list --json",
        "list --stale 3",
        "show 3 --json",
        "next",
        "next flicker --explain",
        "prime",
        "log 3 --limit 5",
        "wait 3 --status done --timeout 600",
        "wait --revision-after 4 --timeout 0.5",
        "verify --current",
        "render --check",
        "sync --op darkwing-op-0001",
        "unlock --check-gate",
        "unlock",
        "doctor",
        "mcp",
        "mcp --seat darkwing",
        "review verify-commit 3 HEAD",
        "review verify-commit 3 'main~1'",
    ] {
        assert_eq!(
            judge("darkwing", line).map_err(|e| e.to_string()),
            Ok(()),
            "{line}"
        );
    }
    for verb in [
        "take",
        "move 3 in-progress",
        "move 3 in-review --candidate main --issue 12",
        "move 3 in-review --candidate feature/x",
        "move 3 in-review --manifest-stdin",
        "move 3 in-review --manifest-text 'x'",
        "release 3",
        "note 3 'a note'",
        "set 3 gate jason",
        "review request 3",
        "review resolve 3 darkwing-3-review-1 --comment 4",
        "review record 3 --verdict approve --comment 4 --candidate git:0123",
    ] {
        for by in ["", " --by darkwing"] {
            let line = format!("{verb} {OP}{by}");
            assert_eq!(
                judge("darkwing", &line).map_err(|e| e.to_string()),
                Ok(()),
                "{line}"
            );
        }
    }
}

#[test]
fn no_other_actor_is_taken() {
    for line in [
        format!("take {OP} --by jason"),
        format!("take {OP} --by=jason"),
        format!("move 3 done {OP} --by flicker"),
        format!("review request 3 {OP} --by lead"),
        format!("add --piece x {OP} --by sage"),
        "mcp --seat jason".to_owned(),
        "commit -m x --by lead".to_owned(),
        "install-hook --by jason".to_owned(),
    ] {
        let (kind, message) = refused("darkwing", &line);
        assert_eq!(kind, "actor-pinned", "{line}");
        assert!(
            message.starts_with("refused: this key acts as darkwing only, not "),
            "{message}"
        );
    }
    assert_eq!(
        refused("darkwing", &format!("take {OP} --by jason")).1,
        "refused: this key acts as darkwing only, not jason; leave --by out, since every command through it acts as darkwing"
    );
    // The MCP server names its seat with --seat, which is what to leave out there.
    assert_eq!(
        refused("darkwing", "mcp --seat jason").1,
        "refused: this key acts as darkwing only, not jason; leave --seat out, since every command through it acts as darkwing"
    );
}

#[test]
fn privileged_verbs_follow_the_who_may_table() {
    let lead = [
        format!("add --piece x {OP}"),
        format!("assign 3 flicker {OP}"),
        "commit -m 'queue: row 3'".to_owned(),
        format!("archive --before 5 --yes {OP}"),
    ];
    let privileged = [
        format!("accept-history --reason r --yes {OP}"),
        format!("review abandon 3 darkwing-3-review-1 --reason r --yes {OP}"),
        "install-hook".to_owned(),
    ];
    for line in lead.iter().chain(&privileged) {
        assert_eq!(refused("darkwing", line).0, "privileged-verb", "{line}");
        assert_eq!(
            judge("jason", line).map_err(|e| e.to_string()),
            Ok(()),
            "{line}"
        );
        assert_eq!(
            judge("sage", line).map_err(|e| e.to_string()),
            Ok(()),
            "{line}"
        );
    }
    for line in &lead {
        assert_eq!(
            judge("lead", line).map_err(|e| e.to_string()),
            Ok(()),
            "{line}"
        );
    }
    for line in &privileged {
        assert_eq!(refused("lead", line).0, "privileged-verb", "{line}");
    }
    assert_eq!(
        refused(
            "darkwing",
            &format!("review abandon 3 a-3-review-1 --reason r --yes {OP}")
        )
        .1,
        "refused: review abandon is for jason or sage, and this key acts as darkwing; ask one of them to run it"
    );
    assert_eq!(
        refused("flicker", &format!("genesis --map m.md {OP}")).0,
        "privileged-verb"
    );
}

#[test]
fn verbs_about_the_host_stay_on_it() {
    for (seat, line) in [
        ("jason", format!("genesis --map m.md {OP}")),
        ("darkwing", "map-check --map m.md".to_owned()),
        ("darkwing", "snapshot --out /tmp/x".to_owned()),
        ("darkwing", "snapshot --out snap".to_owned()),
        ("darkwing", "verify --snapshot /tmp/x".to_owned()),
        (
            "darkwing",
            "verify --snapshot docs/plans --base b.json".to_owned(),
        ),
        ("darkwing", "guard".to_owned()),
        ("darkwing", "demo".to_owned()),
        ("darkwing", "completions bash".to_owned()),
        ("darkwing", "man".to_owned()),
        ("darkwing", "gate --seat jason".to_owned()),
        ("darkwing", "board".to_owned()),
        ("jason", "board --listen 127.0.0.1:0".to_owned()),
        ("jason", "follow --to origin".to_owned()),
        ("lead", format!("adopt --from origin {OP}")),
    ] {
        assert_eq!(refused(seat, &line).0, "local-only", "{line}");
    }
    assert_eq!(
        refused("darkwing", "snapshot --out /tmp/x").1,
        "refused: snapshot writes files on the queue host; read the queue with list --json, or run it there"
    );
    assert_eq!(
        refused("darkwing", "board").1,
        "refused: board serves web pages on the queue host's loopback; run it there and reach it with ssh -L"
    );
    assert_eq!(
        refused("jason", "follow --to origin").1,
        "refused: follow pushes the queue host's revisions with the host's own git credentials; run it there (docs/replication.md)"
    );
}

#[test]
fn a_candidate_is_a_commit_never_a_file_on_the_host() {
    for given in [
        "/etc/passwd",
        "/nonexistent",
        "../x",
        "a/../../b",
        "manifest.txt",
        "./manifest.txt",
        "docs/plans/queue.json",
    ] {
        let line = format!("move 3 in-review --candidate {given} {OP}");
        let (kind, message) = refused("darkwing", &line);
        assert_eq!(kind, "file-argument", "{line}");
        assert!(
            message.starts_with(&format!(
                "refused: --candidate {given:?} names a file on the queue host"
            )),
            "{message}"
        );
    }
    assert_eq!(
        refused(
            "darkwing",
            &format!("move 3 in-review --candidate=--output=x {OP}")
        )
        .0,
        "option-injection"
    );
    assert_eq!(
        refused("darkwing", "review verify-commit 3 -- --all").0,
        "option-injection"
    );
}

#[test]
fn a_remote_wait_has_an_end() {
    for line in [
        "wait 3 --status done",
        "wait 3 --status done --timeout 600.5",
        "wait --revision-after 1 --timeout 1e9",
    ] {
        assert_eq!(
            refused("darkwing", line),
            (
                "wait-unbounded",
                "refused: a remote wait needs --timeout SECONDS, at most 600, so it cannot outlive its connection; call it again to wait longer".to_owned()
            ),
            "{line}"
        );
    }
    // A timeout the verb refuses itself waits for nothing: the verb's own message stands.
    assert_eq!(
        judge("darkwing", "wait 3 --status done --timeout soon").map_err(|e| e.to_string()),
        Ok(())
    );
}
