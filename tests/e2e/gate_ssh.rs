//! Remote seats through a real OpenSSH server: each key's `authorized_keys` line runs
//! `mosaic-queue gate` for its seat (with `restrict`), and the real `ssh` client reaches it.
//! MCP works end to end through the tunnel, one verb works, and a key cannot act as another
//! seat, run another program, read a file outside the queue's answers or run a verb kept for
//! others: each refusal is exit 2 with one line and every queue file as it was.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use serde_json::{Value, json};
use support::mcp::Mcp;
use support::review::{Review, lines, receipts, token};
use support::sshd::{Key, Sshd};
use support::{Repo, bin};

use crate::mcp_tools::{error_doc, is, receipt_doc};

/// The forced-command line of `key` for `seat` on the checkout at `root`, with `extra`
/// gate arguments (already quoted for the shell sshd runs the command with).
fn line(seat: &str, root: &Path, extra: &str, key: &Key) -> String {
    format!(
        "restrict,command=\"'{}' gate --seat {seat} --root '{}'{extra}\" {}",
        bin(),
        root.display(),
        key.public
    )
}

/// The line of a key whose forced command prints the environment sshd gave it.
fn probe_line(key: &Key) -> String {
    format!("restrict,command=\"/usr/bin/env\" {}", key.public)
}

/// sshd with one key for each of `seats`, each pinned to its seat on `repo`, and last the
/// probe key (`probe_line`).
fn serve(repo: &Repo, seats: &[&str]) -> (Sshd, Vec<Key>) {
    let sshd = Sshd::start();
    let keys: Vec<Key> = seats
        .iter()
        .chain(&["probe"])
        .map(|s| sshd.key(s))
        .collect();
    let mut lines: Vec<String> = seats
        .iter()
        .zip(&keys)
        .map(|(seat, key)| line(seat, &repo.root, "", key))
        .collect();
    lines.push(probe_line(&keys[seats.len()]));
    sshd.authorize(&lines);
    (sshd, keys)
}

/// sshd delivers every variable `setenv` (one `SetEnv=A=1 B=2` option) sends: the probe key's
/// forced command prints the environment it got, so a test that the gate ignores them tests
/// variables that arrived, not ones sshd dropped.
#[track_caller]
fn assert_delivered(sshd: &Sshd, probe: &Key, setenv: &str) {
    let out = sshd.run(probe, &[setenv], "anything");
    let env = out.ok();
    let pairs = setenv.strip_prefix("SetEnv=").unwrap().split(' ');
    for pair in pairs {
        assert!(
            env.lines().any(|l| l == pair),
            "sshd did not deliver {pair}:\n{env}\nsshd: {}",
            sshd.log()
        );
    }
    assert!(
        env.lines().any(|l| l == "SSH_ORIGINAL_COMMAND=anything"),
        "{env}"
    );
}

#[test]
fn mcp_works_end_to_end_through_ssh() {
    let repo = Repo::new("ssh-mcp");
    let (sshd, keys) = serve(&repo, &["darkwing"]);
    // No command at all, as `claude mcp add queue -- ssh -T queue-host` starts it.
    assert_delivered(&sshd, &keys[1], "SetEnv=MOSAIC_AGENT_NAME=jason");
    let mut mcp = Mcp::spawn_command(sshd.ssh(&keys[0], &["SetEnv=MOSAIC_AGENT_NAME=jason"], None));
    let init = mcp.handshake();
    assert_eq!(
        init["result"]["serverInfo"]["name"], "mosaic-queue",
        "{init}"
    );
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(
        instructions.starts_with("The team's work queue, for seat darkwing:"),
        "{instructions}"
    );
    let tools = mcp.tools();
    let names = support::mcp::tool_names(&tools);
    assert_eq!(
        names,
        [
            "orient", "read", "take", "change", "wait", "confirm", "review"
        ]
    );
    let size = serde_json::to_string(&tools).unwrap().len();
    assert!(size <= 6000, "tools/list is {size} bytes");
    let take = mcp.call("take", json!({"op": "darkwing-take-1"}));
    assert_eq!(
        (take.is_error, take.json()),
        (
            false,
            json!({"op": "darkwing-take-1", "revision": 2, "verb": "take", "row": 1,
                "recorded": false, "text": "ok darkwing-take-1 rev 2 take 1 queued -> in-progress",
                "current": {"id": 1, "piece": "Parser", "owner": "darkwing",
                    "status": "in-progress", "gate": null, "issues": [12, 14],
                    "closes": [12, 14], "closesNarrowed": false, "reviewers": [], "brief": null,
                    "note": "first", "blockedReason": null, "review": null}})
        )
    );
    assert_eq!(repo.queue()["log"][1]["by"], json!("darkwing"));
    // A file on the host is refused inside the server too; the inline manifest is taken.
    let before = repo.snapshot();
    let refused = mcp.call(
        "change",
        json!({"verb": "move", "op": "darkwing-1-review-1", "id": 1, "status": "in-review",
            "candidate": "/etc/passwd", "issue": 12}),
    );
    is(
        &refused,
        true,
        &error_doc(
            2,
            "file-argument",
            "refused: --candidate \"/etc/passwd\" names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
            "send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
        ),
    );
    repo.assert_unchanged(&before);
    let manifest = format!("{} src/parser.rs\n", "d".repeat(64));
    let moved = mcp.call(
        "change",
        json!({"verb": "move", "op": "darkwing-1-review-1", "id": 1, "status": "in-review",
            "manifest": manifest, "issue": 12}),
    );
    is(
        &moved,
        false,
        &receipt_doc(
            "darkwing-1-review-1",
            3,
            "move",
            1,
            false,
            "ok darkwing-1-review-1 rev 3 move 1 in-progress -> in-review round 1",
        ),
    );
    assert_eq!(repo.queue()["log"][2]["args"]["manifest"], json!(manifest));
    assert!(mcp.close().success());
}

/// `orient` through the gate: the rules and commands of a remote seat (the manifest's text or a
/// commit, never a file; no `--by`), as `prime` through the gate gives them.
const ORIENT_REMOTE: &str = r#"{"revision":1,"durable":true,"seat":"darkwing","role":"seat","rows":[{"id":1,"piece":"Parser","status":"queued","waitsOn":[],"waitsOnMore":0}],"next":{"id":1,"piece":"Parser","status":"queued","owner":"darkwing"},"passed":[{"id":3,"why":"parked"}],"rules":["Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.","Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.","Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.","Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.","You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs the manifest's text (--manifest-stdin, or --manifest-text for one line; never a file, which the queue host cannot read) or a commit the queue host has (--candidate REV), -> blocked needs --reason; in-review -> in-progress when changes are asked.","You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.","The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done."],"commands":["mosaic-queue take --op OP                    claim what next names and start it","mosaic-queue next darkwing --explain         what next gives and why","mosaic-queue show ID                         one row","mosaic-queue move ID in-review --manifest-stdin --op OP < MANIFEST","mosaic-queue move ID in-review --candidate REV --op OP","mosaic-queue move ID blocked --reason TEXT --op OP","mosaic-queue release ID --op OP","mosaic-queue note ID TEXT --op OP","mosaic-queue wait ID --status in-review,done --timeout 600","mosaic-queue sync --op OP                    is that op in the log and durable?"],"cut":null}"#;

#[test]
fn mcp_by_name_and_one_verb_work_through_ssh() {
    let repo = Repo::new("ssh-verb");
    let (sshd, keys) = serve(&repo, &["darkwing", "flicker"]);
    let mut mcp = Mcp::spawn_command(sshd.ssh(&keys[0], &[], Some("mosaic-queue mcp")));
    mcp.handshake();
    is(&mcp.call("orient", json!({})), false, ORIENT_REMOTE);
    assert!(mcp.close().success());

    let local = repo.run(&["list", "--json"], &[]);
    let remote = sshd.run(&keys[1], &[], "list --json");
    assert_eq!(remote.ok(), local.ok());
    // The client's environment names jason and another repository (sshd delivers both);
    // the key is flicker's.
    assert_delivered(
        &sshd,
        &keys[2],
        "SetEnv=MOSAIC_AGENT_NAME=jason GIT_DIR=/nonexistent",
    );
    let take = sshd.run(
        &keys[1],
        &["SetEnv=MOSAIC_AGENT_NAME=jason GIT_DIR=/nonexistent"],
        "take --op flicker-take-1",
    );
    assert_eq!(
        take.ok(),
        "ok flicker-take-1 rev 2 take 2 queued -> in-progress\n"
    );
    assert_eq!(repo.queue()["log"][1]["by"], json!("flicker"));
    let note = sshd.run(
        &keys[1],
        &[],
        "note 2 'picked up; over ssh' --op flicker-2-note-1",
    );
    assert_eq!(note.ok(), "ok flicker-2-note-1 rev 3 note 2\n");
    assert_eq!(repo.row(2)["note"], json!("picked up; over ssh"));
}

/// What a darkwing key sends that the gate refuses, and the line it prints.
const REFUSED: &[(&str, &str)] = &[
    (
        "/bin/sh",
        "refused: this key runs mosaic-queue verbs only, not \"/bin/sh\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server",
    ),
    (
        "cat /etc/passwd",
        "refused: this key runs mosaic-queue verbs only, not \"cat\"; send a verb (ssh HOST list), or nothing or `mcp` for the MCP server",
    ),
    (
        "mosaic-queue; id",
        "refused: `;` at character 13 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
    ),
    (
        "list `id`",
        "refused: a backquote at character 6 is shell syntax, which the gate does not run; send plain words and put other text in '...'",
    ),
    (
        "take --op darkwing-take-9 --by jason",
        "refused: this key acts as darkwing only, not jason; leave --by out, since every command through it acts as darkwing",
    ),
    (
        "move 1 in-review --candidate /etc/passwd --op darkwing-1-rev-9",
        "refused: --candidate \"/etc/passwd\" names a file on the queue host, which a remote seat cannot hand over; send the manifest's text with --manifest-stdin (ssh HOST move ... --manifest-stdin < MANIFEST) or --manifest-text, or name a commit",
    ),
    (
        "map-check --map /etc/shadow",
        "refused: map-check reads the migration map from a file on the queue host; run it there",
    ),
    (
        "snapshot --out /tmp/mosaic-gate-snapshot",
        "refused: snapshot writes files on the queue host; read the queue with list --json, or run it there",
    ),
    (
        "genesis --map /etc/passwd --op darkwing-gen-9",
        "refused: genesis is for jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
    (
        "review abandon 1 darkwing-1-review-1 --reason r --yes --op darkwing-ab-9",
        "refused: review abandon is for jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
    (
        "add --piece x --op darkwing-add-9",
        "refused: add is for the lead, jason or sage, and this key acts as darkwing; ask one of them to run it",
    ),
];

#[test]
fn a_key_cannot_act_as_another_seat_run_another_program_or_reach_a_file() {
    let repo = Repo::new("ssh-refused");
    let (sshd, keys) = serve(&repo, &["darkwing"]);
    let before = repo.snapshot();
    assert_delivered(&sshd, &keys[1], "SetEnv=MOSAIC_AGENT_NAME=jason");
    for (remote, message) in REFUSED {
        // The client also claims jason through its environment; nothing comes of it.
        let out = sshd.run(&keys[0], &["SetEnv=MOSAIC_AGENT_NAME=jason"], remote);
        assert_eq!(
            out.fails(2),
            format!("mosaic-queue: {message}"),
            "{remote}; sshd: {}",
            sshd.log()
        );
        repo.assert_unchanged(&before);
    }
    assert!(!Path::new("/tmp/mosaic-gate-snapshot").exists());
    // Asked for in JSON through sshd: the error document, with its kind. (`--json` comes last:
    // ssh would read a leading one as its own option.)
    let out = sshd.run(
        &keys[0],
        &["SetEnv=MOSAIC_AGENT_NAME=jason"],
        "take --op darkwing-take-9 --by jason --json",
    );
    let message = "refused: this key acts as darkwing only, not jason; leave --by out, since every command through it acts as darkwing";
    assert_eq!(
        (
            out.code,
            out.stderr.as_str(),
            serde_json::from_str::<Value>(&out.stdout).unwrap()
        ),
        (
            2,
            format!("mosaic-queue: {message}\n").as_str(),
            json!({"error": {"exit": 2, "kind": "actor-pinned", "message": message,
                "next": "leave --by out, since every command through it acts as darkwing",
                "retryable": false}})
        )
    );
    // Bytes that are not UTF-8 reach the gate as sshd got them, and are refused as such.
    let mut ssh = sshd.ssh(&keys[0], &[], None);
    ssh.arg(std::ffi::OsStr::from_bytes(b"list \xff"));
    let out = ssh.output().unwrap();
    assert_eq!(
        (out.status.code(), out.stdout.as_slice(), out.stderr.as_slice()),
        (
            Some(2),
            &b""[..],
            &b"mosaic-queue: refused: SSH_ORIGINAL_COMMAND is not UTF-8; send the verb and its arguments as text\n"[..]
        )
    );
    // No command and nothing on stdin: the MCP server, which ends at once, printing nothing;
    // never a shell.
    let out = sshd.ssh(&keys[0], &[], None).output().unwrap();
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(0), &b""[..])
    );
    // A key that is not in authorized_keys gets nothing at all.
    let stranger = sshd.key("stranger");
    let out = sshd.run(&stranger, &[], "list");
    assert_eq!(out.code, 255, "{out:?}");
    assert_eq!(out.stdout, "");
    repo.assert_unchanged(&before);
}

#[test]
fn a_remote_review_request_posts_with_the_seats_token_kept_on_the_host() {
    let r = Review::new("ssh-review");
    r.row1_in_progress();
    let head = r.head();
    let sshd = Sshd::start();
    let key = sshd.key("darkwing");
    let probe = sshd.key("probe");
    let own = r.token_file("darkwing");
    let extra = format!(
        " --gitea-url {} --gitea-repo mosaic/stack --gitea-credential-file '{}'",
        r.fake.url(),
        own.display()
    );
    sshd.authorize(&[
        line("darkwing", &r.repo.root, &extra, &key),
        probe_line(&probe),
    ]);
    // The client names jason's token file; the gate takes the key's line's.
    let jasons = format!(
        "SetEnv=MOSAIC_GITEA_CREDENTIAL_FILE={}",
        r.token_file("jason").display()
    );
    assert_delivered(&sshd, &probe, &jasons);
    let remote = format!("move 1 in-review --candidate {head} --issue 12 --op darkwing-1-review");
    let out = sshd.run(&key, &[&jasons], &remote);
    assert_eq!(
        out.ok(),
        lines(&receipts("posted http 201 comment 4001")).join("\n") + "\n"
    );
    r.assert_no_token(&out);
    let stored = r.fake.comments();
    assert_eq!(stored.len(), 1);
    assert_eq!((stored[0].issue, &*stored[0].login), (12, "darkwing"));
    let auth = format!("token {}", token("darkwing"));
    for seen in r.fake.seen() {
        assert_eq!(seen.authorization.as_deref(), Some(auth.as_str()));
    }
    let row: Value = r.repo.row(1);
    assert_eq!(row["status"], "in-review");
}
