//! Coordination verbs through the real binary: `take` (a claim under the lock, idempotent by
//! op id, nothing written when there is nothing to take), and 16 seats racing `take` over
//! 8 takeable rows with 8 distinct winners and a gap-free log.

use std::sync::Barrier;

use serde_json::Value;
use support::retry::past_lock_waits;
use support::watch::until_watching;
use support::{Out, Repo, change, ok};

/// The semantics of each log entry, in order.
fn semantics(repo: &Repo) -> Vec<u64> {
    repo.queue()["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["semantics"].as_u64().unwrap())
        .collect()
}

#[test]
fn take_claims_what_next_names_once_and_answers_retries_with_the_receipt() {
    let repo = Repo::new("take-basic");
    // Row 1 is darkwing's (queued), row 2 is unowned and queued, row 3 parked.
    let out = repo.run(&["next", "huey"], &[]);
    assert!(out.ok().starts_with("row 2: Render\n"), "{}", out.stdout);

    ok(
        &repo,
        &["take"],
        "huey-take-0001",
        "huey",
        "ok huey-take-0001 rev 2 take 2 queued -> in-progress",
    );
    let row = repo.row(2);
    assert_eq!(
        (&row["status"], &row["owner"]),
        (&"in-progress".into(), &"huey".into())
    );
    // The first entry that takes carries semantics 3; genesis stays 2.
    assert_eq!(semantics(&repo), [2, 3]);
    assert_eq!(
        repo.body(),
        "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued |  | #12, #14 | first |
| 2 | Render | huey | in-progress | jason | #20 |  |

**Parked**

- 3 Old thing (owner sage): later
"
    );

    // A retry answers with the original receipt and writes nothing.
    let before = repo.snapshot();
    let argv = change(&["take"], "huey-take-0001", "huey");
    assert_eq!(
        repo.run(&argv, &[]).ok(),
        "ok huey-take-0001 rev 2 take 2 queued -> in-progress\n"
    );
    repo.assert_unchanged(&before);

    // huey's next is its own in-progress row: nothing new to take, nothing written.
    let out = repo.run(&change(&["take"], "huey-take-0002", "huey"), &[]);
    assert_eq!(out.ok(), "nothing to take: huey has row 2 in progress\n");
    repo.assert_unchanged(&before);

    // louie has nothing: row 1 is darkwing's, row 2 huey's, row 3 parked.
    let out = repo.run(&change(&["take"], "louie-take-0001", "louie"), &[]);
    assert_eq!(out.ok(), "nothing to take\n");
    let out = repo.run(
        &change(&["take", "--json"], "louie-take-0001", "louie"),
        &[],
    );
    assert_eq!(
        out.ok(),
        "{\n  \"op\": \"louie-take-0001\",\n  \"revision\": 2,\n  \"verb\": \"take\",\n  \"row\": null,\n  \"recorded\": false,\n  \"text\": \"nothing to take\",\n  \"current\": null\n}\n"
    );
    // huey has row 2 in progress: nothing is taken, and `current` is that row.
    let out = repo.run(&change(&["take", "--json"], "huey-take-0002", "huey"), &[]);
    let row2 = repo.row(2);
    assert_eq!(
        serde_json::from_str::<Value>(out.ok()).unwrap(),
        serde_json::json!({
            "op": "huey-take-0002",
            "revision": 2,
            "verb": "take",
            "row": null,
            "recorded": false,
            "text": "nothing to take: huey has row 2 in progress",
            "current": row2
        })
    );
    repo.assert_unchanged(&before);
    assert!(!repo.path(".git/mosaic-queue.lock").exists());

    // darkwing takes its own queued row, with --json.
    let out = repo.run(
        &change(&["take", "--json"], "darkwing-take-0001", "darkwing"),
        &[],
    );
    // The receipt object of every change, and `current`: the row taken, as it now stands.
    let v: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "op": "darkwing-take-0001",
            "revision": 3,
            "verb": "take",
            "row": 1,
            "recorded": false,
            "text": "ok darkwing-take-0001 rev 3 take 1 queued -> in-progress",
            "current": repo.row(1)
        })
    );
    assert_eq!(repo.row(1)["owner"], "darkwing");
    assert!(
        out.stdout.starts_with(
            "{\n  \"op\": \"darkwing-take-0001\",\n  \"revision\": 3,\n  \"verb\": \"take\",\n  \"row\": 1,\n  \"recorded\": false,\n  \"text\": \"ok darkwing-take-0001 rev 3 take 1 queued -> in-progress\",\n  \"current\": {\n    \"id\": 1,\n"
        ),
        "{}",
        out.stdout
    );
    // Later entries keep semantics 3.
    ok(
        &repo,
        &["note", "1", "parsing"],
        "darkwing-note-0001",
        "darkwing",
        "ok darkwing-note-0001 rev 4 note 1",
    );
    assert_eq!(semantics(&repo), [2, 3, 3, 3]);

    // The queue moved on (row 2 released and taken by another seat): huey's retry still
    // answers with its original receipt, and changes nothing.
    ok(
        &repo,
        &["release", "2"],
        "huey-release-0001",
        "huey",
        "ok huey-release-0001 rev 5 release 2 in-progress -> queued",
    );
    ok(
        &repo,
        &["take"],
        "dewey-take-0001",
        "dewey",
        "ok dewey-take-0001 rev 6 take 2 queued -> in-progress",
    );
    let before = repo.snapshot();
    assert_eq!(
        repo.run(&argv, &[]).ok(),
        "ok huey-take-0001 rev 2 take 2 queued -> in-progress\n"
    );
    // A retry's receipt object: the original receipt, and the row as it stands now (dewey's).
    let out = repo.run(&change(&["take", "--json"], "huey-take-0001", "huey"), &[]);
    let v: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "op": "huey-take-0001",
            "revision": 2,
            "verb": "take",
            "row": 2,
            "recorded": true,
            "text": "ok huey-take-0001 rev 2 take 2 queued -> in-progress",
            "current": repo.row(2)
        })
    );
    assert_eq!(repo.row(2)["owner"], "dewey");
    repo.assert_unchanged(&before);

    // The op under another verb, or by another seat, is refused.
    let out = repo.run(&change(&["release", "2"], "huey-take-0001", "huey"), &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: op `huey-take-0001` was already used at rev 2 for another command (take); choose a new op id"
    );
    let out = repo.run(&change(&["take"], "huey-take-0001", "louie"), &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: op `huey-take-0001` was recorded at rev 2 by huey, not louie; choose a new op id"
    );
    repo.assert_unchanged(&before);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 6 (6 entries, witness rev 6), table current\n"
    );
}

#[test]
fn take_refuses_a_bad_op_or_no_actor_before_reading() {
    let repo = Repo::new("take-refusals");
    let before = repo.snapshot();
    let out = repo.run(&["take", "--op", "short", "--by", "huey"], &[]);
    assert!(
        out.fails(2)
            .starts_with("mosaic-queue: refused: op id \"short\""),
        "{out:?}"
    );
    let out = repo.run(&["take", "--op", "huey-take-0001"], &[]);
    assert_eq!(
        out.fails(4),
        "mosaic-queue: no actor: pass --by NAME or set MOSAIC_AGENT_NAME"
    );
    repo.assert_unchanged(&before);
    let out = repo.run(
        &["take", "--op", "huey-take-0001"],
        &[("MOSAIC_AGENT_NAME", "huey")],
    );
    assert_eq!(
        out.ok(),
        "ok huey-take-0001 rev 2 take 2 queued -> in-progress\n"
    );
}

/// The rev a receipt `ok <op> rev <N> ...` names, and the row it took.
fn taken(receipt: &str) -> (u64, u64) {
    let words: Vec<&str> = receipt.trim_end().split(' ').collect();
    assert_eq!((words[0], words[2], words[4]), ("ok", "rev", "take"));
    (words[3].parse().unwrap(), words[5].parse().unwrap())
}

#[test]
fn sixteen_seats_race_take_over_eight_rows() {
    const SEATS: usize = 16;
    let repo = Repo::new("take-race");
    // Row 2 is unowned and queued; seven more make eight takeable rows (ids 2, 4..=10).
    for n in 0..7 {
        let op = format!("lead-add-{n:04}");
        let out = repo.run(
            &change(&["add", "--piece", &format!("Free work {n}")], &op, "lead"),
            &[],
        );
        assert_eq!(
            out.ok(),
            format!("ok {op} rev {} add {} queued\n", n + 2, n + 4)
        );
    }
    let seats: Vec<String> = (0..SEATS).map(|s| format!("racer{s:02}")).collect();
    let barrier = Barrier::new(SEATS);
    let outs: Vec<Out> = std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .map(|seat| {
                let (repo, barrier) = (&repo, &barrier);
                s.spawn(move || {
                    let op = format!("{seat}-take");
                    let args = change(&["take"], &op, seat);
                    barrier.wait();
                    // A writer that runs out of lock wait exits 1; the rule says retry.
                    past_lock_waits(|| repo.run(&args, &[])).0
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let mut winners = Vec::new();
    let mut empty = 0;
    for (seat, out) in seats.iter().zip(&outs) {
        let stdout = out.ok();
        if stdout == "nothing to take\n" {
            empty += 1;
            continue;
        }
        assert!(
            stdout.starts_with(&format!("ok {seat}-take rev ")),
            "{seat}: {stdout:?}"
        );
        let (rev, id) = taken(stdout);
        assert!(
            stdout.ends_with(&format!("take {id} queued -> in-progress\n")),
            "{stdout}"
        );
        winners.push((rev, id, seat.clone()));
    }
    assert_eq!((winners.len(), empty), (8, 8), "{outs:?}");
    winners.sort();
    // Distinct rows, taken in queue order, one rev each after the adds: a gap-free log.
    let ids: Vec<u64> = winners.iter().map(|w| w.1).collect();
    assert_eq!(ids, [2, 4, 5, 6, 7, 8, 9, 10]);
    let revs: Vec<u64> = winners.iter().map(|w| w.0).collect();
    assert_eq!(revs, (9..=16).collect::<Vec<u64>>());
    for (_, id, seat) in &winners {
        let row = repo.row(*id);
        assert_eq!(
            (&row["status"], &row["owner"]),
            (&"in-progress".into(), &seat.as_str().into())
        );
    }
    let log = repo.queue()["log"].as_array().unwrap().clone();
    assert_eq!(log.len(), 16);
    for (i, e) in log.iter().enumerate() {
        assert_eq!(e["rev"], i as u64 + 1);
    }
    let taken_ops: Vec<String> = winners.iter().map(|w| format!("{}-take", w.2)).collect();
    assert_eq!(repo.ops()[8..], taken_ops[..]);
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 16 (16 entries, witness rev 16), table current\n"
    );
}

#[test]
fn rows_wait_on_their_dependencies() {
    let repo = Repo::new("deps");
    ok(
        &repo,
        &["add", "--piece", "Docs", "--after", "2"],
        "lead-add-0001",
        "lead",
        "ok lead-add-0001 rev 2 add 4 queued",
    );
    // A row that waits is no lease: semantics 3, and the table names the row waited on as
    // the build before leases did.
    assert_eq!(semantics(&repo), [2, 3]);
    assert_eq!(repo.row(4)["after"], serde_json::json!([2]));
    // A row without dependencies has no `after` key at all.
    assert_eq!(repo.row(2).get("after"), None);
    assert_eq!(
        repo.body(),
        "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Parser | darkwing | queued |  | #12, #14 | first |
| 2 | Render |  | queued | jason | #20 |  |
| 4 | Docs |  | queued (waits on #2) |  |  |  |

**Parked**

- 3 Old thing (owner sage): later
"
    );

    // Refusals leave every file as it was.
    let before = repo.snapshot();
    for (args, op, line) in [
        (
            &["add", "--piece", "Later", "--after", "9"][..],
            "lead-add-0002",
            "mosaic-queue: refused: row 5 cannot wait on row 9: there is no such row",
        ),
        (
            &["set", "4", "after", "4"][..],
            "lead-set-0001",
            "mosaic-queue: refused: row 4 cannot wait on #4: that makes a cycle",
        ),
        (
            &["set", "2", "after", "4"][..],
            "lead-set-0002",
            "mosaic-queue: refused: row 2 cannot wait on #4 -> #2: that makes a cycle",
        ),
    ] {
        let out = repo.run(&change(args, op, "lead"), &[]);
        assert_eq!(out.fails(2), line, "{args:?}");
    }
    let out = repo.run(
        &change(&["set", "4", "after", "x"], "lead-set-0003", "lead"),
        &[],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: after \"x\" is not a whole number; give digits, as in 12"
    );
    repo.assert_unchanged(&before);

    // Row 4 waits on row 2, so a new seat gets row 2, then nothing.
    let out = repo.run(&["next", "huey", "--explain"], &[]);
    let text = out.ok();
    assert!(text.starts_with("row 2: Render\n"), "{text}");
    assert!(
        text.ends_with(
            "  rev: 2\npassed over:\n  row 1: owned by darkwing\n  row 3: parked\n  row 4: waiting on #2\n"
        ),
        "{text}"
    );
    ok(
        &repo,
        &["take"],
        "huey-take-0001",
        "huey",
        "ok huey-take-0001 rev 3 take 2 queued -> in-progress",
    );
    let out = repo.run(&["next", "louie", "--explain"], &[]);
    assert_eq!(
        out.ok(),
        "nothing for louie to take up\npassed over:\n  row 1: owned by darkwing\n  row 2: owned by huey\n  row 3: parked\n  row 4: waiting on #2\n"
    );
    let out = repo.run(&["next", "louie", "--explain", "--json"], &[]);
    let v: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(v["row"], Value::Null);
    assert_eq!(v["passed"][3]["why"], "waiting");
    assert_eq!(v["passed"][3]["text"], "waiting on #2");
    assert_eq!(v["done"], 0);
    let out = repo.run(&change(&["take"], "louie-take-0001", "louie"), &[]);
    assert_eq!(out.ok(), "nothing to take\n");
    let out = repo.run(&["show", "4"], &[]);
    assert!(out.ok().contains("\n  after: #2\n"), "{}", out.stdout);

    // Clearing the dependency frees the row and drops the key.
    ok(
        &repo,
        &["set", "4", "after", ""],
        "lead-set-0004",
        "lead",
        "ok lead-set-0004 rev 4 set 4 after",
    );
    assert_eq!(repo.row(4).get("after"), None);
    ok(
        &repo,
        &["take"],
        "louie-take-0001",
        "louie",
        "ok louie-take-0001 rev 5 take 4 queued -> in-progress",
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 5 (5 entries, witness rev 5), table current\n"
    );
}

/// Starts `wait` in the background; its output is collected with `finish`.
fn spawn_wait(repo: &Repo, args: &[&str]) -> std::process::Child {
    let mut argv = vec!["wait"];
    argv.extend_from_slice(args);
    support::command(&repo.root, &argv, &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: std::process::Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn wait_returns_when_another_process_makes_the_condition_true() {
    let repo = Repo::new("wait-status");
    let mut waiter = spawn_wait(
        &repo,
        &["2", "--status", "in-progress,in-review", "--timeout", "60"],
    );
    let mut revision = spawn_wait(&repo, &["--revision-after", "1", "--timeout", "60"]);
    // Both are asleep on their watch before the write, so the write is what wakes them.
    until_watching(waiter.id(), &repo.path(".git"));
    until_watching(revision.id(), &repo.path(".git"));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "wait returned before the write"
    );
    assert!(revision.try_wait().unwrap().is_none());
    ok(
        &repo,
        &["move", "2", "in-progress"],
        "huey-start-0001",
        "huey",
        "ok huey-start-0001 rev 2 move 2 queued -> in-progress",
    );
    let (code, stdout, stderr) = finish(waiter);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, repo.run(&["show", "2"], &[]).ok());
    assert_eq!(
        finish(revision),
        (0, String::from("rev 2\n"), String::new())
    );

    // Already true: answers at once, like show.
    let out = repo.run(&["wait", "1", "--status", "queued"], &[]);
    assert_eq!(out.ok(), repo.run(&["show", "1"], &[]).ok());
    let out = repo.run(&["wait", "--revision-after", "1", "--json"], &[]);
    assert_eq!(out.ok(), "{\n  \"revision\": 2,\n  \"durable\": true\n}\n");
    let out = repo.run(&["wait", "2", "--status", "in-progress", "--json"], &[]);
    assert_eq!(out.ok(), repo.run(&["show", "2", "--json"], &[]).ok());
}

#[test]
fn wait_times_out_and_refuses_what_can_never_hold() {
    let repo = Repo::new("wait-timeout");
    let before = repo.snapshot();
    let out = repo.run(&["wait", "2", "--status", "done", "--timeout", "0.2"], &[]);
    assert_eq!(
        out.fails(1),
        "mosaic-queue: timed out after 0.2s waiting for row 2 to be done; it is queued at rev 1"
    );
    let out = repo.run(&["wait", "--revision-after", "1", "--timeout", "0"], &[]);
    assert_eq!(
        out.fails(1),
        "mosaic-queue: timed out after 0s waiting for a revision after 1; the queue is at rev 1"
    );
    let out = repo.run(&["wait", "9", "--status", "done"], &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: no row 9 in the queue; `mosaic-queue list` shows the rows"
    );
    // A command line of the wrong shape is usage; a value that is no status or no number of
    // seconds is invalid data, however it is spelled.
    for args in [
        &["wait", "2"][..],
        &["wait", "--revision-after", "1", "--status", "done"],
        &["wait"],
    ] {
        assert_eq!(repo.run(args, &[]).code, 4, "{args:?}");
    }
    for (args, line) in [
        (
            &["wait", "2", "--status", "nope"][..],
            "mosaic-queue: refused: unknown status \"nope\"; use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done",
        ),
        (
            &["wait", "2", "--status=nope"],
            "mosaic-queue: refused: unknown status \"nope\"; use queued, in-progress, in-review, waiting-on-jason, blocked, parked or done",
        ),
        (
            &["wait", "2", "--status", "done", "--timeout", "-1"],
            "mosaic-queue: refused: --timeout \"-1\" is not a number of seconds; give one from 0 to 31536000",
        ),
        (
            &["wait", "2", "--status", "done", "--timeout=-1"],
            "mosaic-queue: refused: --timeout \"-1\" is not a number of seconds; give one from 0 to 31536000",
        ),
    ] {
        assert_eq!(repo.run(args, &[]).fails(2), line, "{args:?}");
    }
    repo.assert_unchanged(&before);
}

#[test]
fn wait_never_reports_a_write_that_is_not_durable() {
    let repo = Repo::new("wait-durable");
    let argv = change(&["move", "2", "in-progress"], "huey-start-0001", "huey");
    // Killed after the rename, before the witness: queue.json is ahead of the witness.
    let out = repo.run(&argv, &[("MOSAIC_KILL_AT", "queue-renamed")]);
    assert_eq!(out.signal, Some(9));
    assert_eq!(repo.queue()["revision"], 2);
    let out = repo.run(
        &["wait", "2", "--status", "in-progress", "--timeout", "0.3"],
        &[],
    );
    assert_eq!(
        out.fails(1),
        "mosaic-queue: timed out after 0.3s waiting for row 2 to be in-progress; no durable revision was confirmed meanwhile"
    );
    // A waiter started now is woken by the retry that makes the write durable.
    let mut waiter = spawn_wait(&repo, &["2", "--status", "in-progress", "--timeout", "60"]);
    until_watching(waiter.id(), &repo.path(".git"));
    assert!(waiter.try_wait().unwrap().is_none());
    repo.run(&["unlock"], &[]).ok();
    assert_eq!(
        repo.run(&argv, &[]).ok(),
        "ok huey-start-0001 rev 2 move 2 queued -> in-progress\n"
    );
    let (code, stdout, _) = finish(waiter);
    assert_eq!(code, 0);
    assert_eq!(stdout, repo.run(&["show", "2"], &[]).ok());
}

/// The witness restored by a writer that does not rename (`cp`): created empty, filled in
/// pieces, closed. `wait` looks only once a write is closed, and a witness it cannot parse
/// when it looks is one not there yet: it waits on, whether it found it torn at its first
/// look or when woken, and answers once the witness is whole.
#[test]
fn wait_waits_on_a_witness_written_in_place_until_it_is_whole() {
    use std::io::Write;
    let repo = Repo::new("wait-witness-in-place");
    let witness = repo.path(".git/mosaic-queue.head");
    let before = std::fs::read(&witness).unwrap();
    // Row 2 in progress at rev 2, durable once its witness is written: sync writes it, and
    // the test keeps its bytes and puts the rev 1 witness back, so queue.json is ahead.
    let argv = change(&["move", "2", "in-progress"], "huey-start-0001", "huey");
    let out = repo.run(&argv, &[("MOSAIC_KILL_AT", "queue-renamed")]);
    assert_eq!(out.signal, Some(9));
    repo.run(&["unlock"], &[]).ok();
    repo.run(&["sync"], &[]).ok();
    let whole = std::fs::read(&witness).unwrap();
    assert_ne!(whole, before);
    let half = whole.len() / 2;
    let put_back = || {
        let temp = repo.path(".git/witness.tmp");
        std::fs::write(&temp, &before).unwrap();
        std::fs::rename(&temp, &witness).unwrap();
    };
    // Another descriptor opened for writing and closed: an event a wait looks on.
    let close_a_write = || {
        drop(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&witness)
                .unwrap(),
        )
    };

    // Woken while it is torn: created (no look), half written, a write closed (a look).
    put_back();
    let mut waiter = spawn_wait(&repo, &["2", "--status", "in-progress", "--timeout", "60"]);
    until_watching(waiter.id(), &repo.path(".git"));
    std::fs::remove_file(&witness).unwrap();
    let mut cp = std::fs::File::create(&witness).unwrap();
    cp.write_all(&whole[..half]).unwrap();
    close_a_write();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "wait answered a torn witness"
    );
    cp.write_all(&whole[half..]).unwrap();
    drop(cp);
    let (code, stdout, stderr) = finish(waiter);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, repo.run(&["show", "2"], &[]).ok());

    // Torn at its first look: it waits for the write to close.
    put_back();
    std::fs::remove_file(&witness).unwrap();
    let mut cp = std::fs::File::create(&witness).unwrap();
    cp.write_all(&whole[..half]).unwrap();
    let mut waiter = spawn_wait(&repo, &["2", "--status", "in-progress", "--timeout", "60"]);
    until_watching(waiter.id(), &repo.path(".git"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "wait answered a torn witness"
    );
    cp.write_all(&whole[half..]).unwrap();
    drop(cp);
    let (code, stdout, stderr) = finish(waiter);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, repo.run(&["show", "2"], &[]).ok());

    // One that stays torn past the timeout: the timeout's line, saying what to run.
    put_back();
    std::fs::write(&witness, &whole[..half]).unwrap();
    let out = repo.run(
        &["wait", "2", "--status", "in-progress", "--timeout", "0.3"],
        &[],
    );
    assert_eq!(
        out.fails(1),
        format!(
            "mosaic-queue: timed out after 0.3s waiting for row 2 to be in-progress; no durable revision was confirmed meanwhile (the witness {} could not be read: `mosaic-queue doctor` says why)",
            witness.display()
        )
    );
}

/// `.git` replaced by a copy while waiters wait: moved aside or removed and the copy moved
/// into place, or the copy swapped in by one rename. The write that lands in the new `.git` afterwards
/// wakes them with the right answer.
#[test]
fn wait_follows_a_git_dir_replaced_while_it_waits() {
    for how in ["moved-aside", "removed", "swapped"] {
        let repo = Repo::new(&format!("wait-replaced-{how}"));
        let git = repo.path(".git");
        let mut waiter = spawn_wait(&repo, &["2", "--status", "in-progress", "--timeout", "60"]);
        let revision = spawn_wait(&repo, &["--revision-after", "1", "--timeout", "60"]);
        until_watching(waiter.id(), &git);
        until_watching(revision.id(), &git);
        let copy = repo.path(".git.copy");
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(&git)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(status.success());
        match how {
            "removed" => {
                std::fs::remove_dir_all(&git).unwrap();
                std::fs::rename(&copy, &git).unwrap();
            }
            "moved-aside" => {
                std::fs::rename(&git, repo.path(".git.old")).unwrap();
                std::fs::rename(&copy, &git).unwrap();
            }
            _ => rustix::fs::renameat_with(
                rustix::fs::CWD,
                &copy,
                rustix::fs::CWD,
                &git,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .unwrap(),
        }
        // Both follow the new `.git`: they watch it before the write lands there.
        until_watching(waiter.id(), &git);
        until_watching(revision.id(), &git);
        assert!(
            waiter.try_wait().unwrap().is_none(),
            "{how}: returned before the write"
        );
        ok(
            &repo,
            &["move", "2", "in-progress"],
            "huey-start-0001",
            "huey",
            "ok huey-start-0001 rev 2 move 2 queued -> in-progress",
        );
        let (code, stdout, stderr) = finish(waiter);
        assert_eq!((code, stderr.as_str()), (0, ""), "{how}");
        assert_eq!(stdout, repo.run(&["show", "2"], &[]).ok(), "{how}");
        assert_eq!(
            finish(revision),
            (0, String::from("rev 2\n"), String::new()),
            "{how}"
        );
    }
}

const JAN_1: &str = "1798761600000";
const JAN_5: &str = "1799107200000";
const JAN_9: &str = "1799452800000";
const JAN_10: &str = "1799539200000";

#[test]
fn stale_lists_untouched_work_oldest_first() {
    let repo = Repo::new("stale");
    let at = |ms: &'static str| [("MOSAIC_NOW_MS", ms)];
    let out = repo.run(
        &change(
            &["move", "1", "in-progress"],
            "darkwing-start-0001",
            "darkwing",
        ),
        &at(JAN_1),
    );
    assert_eq!(
        out.ok(),
        "ok darkwing-start-0001 rev 2 move 1 queued -> in-progress\n"
    );
    let out = repo.run(&change(&["take"], "huey-take-0001", "huey"), &at(JAN_5));
    assert_eq!(
        out.ok(),
        "ok huey-take-0001 rev 3 take 2 queued -> in-progress\n"
    );

    let out = repo.run(&["list", "--stale", "3"], &at(JAN_10));
    assert_eq!(
        out.ok(),
        "rev 3: 2 rows are stale (no entry for 3 days, since 2027-01-07T00:00:00.000Z)\n  row 1: in-progress, owner darkwing, last entry rev 2 at 2027-01-01T00:00:00.000Z: Parser\n  row 2: in-progress, owner huey, last entry rev 3 at 2027-01-05T00:00:00.000Z: Render\n"
    );
    let out = repo.run(&["list", "--stale", "6"], &at(JAN_10));
    assert_eq!(
        out.ok(),
        "rev 3: 1 row is stale (no entry for 6 days, since 2027-01-04T00:00:00.000Z)\n  row 1: in-progress, owner darkwing, last entry rev 2 at 2027-01-01T00:00:00.000Z: Parser\n"
    );
    let out = repo.run(&["list", "--stale", "10"], &at(JAN_10));
    assert_eq!(
        out.ok(),
        "rev 3: no row is stale (no entry for 10 days, since 2026-12-31T00:00:00.000Z)\n"
    );
    // A note counts as activity.
    let out = repo.run(
        &change(
            &["note", "1", "still parsing"],
            "darkwing-note-0001",
            "darkwing",
        ),
        &at(JAN_9),
    );
    assert_eq!(out.ok(), "ok darkwing-note-0001 rev 4 note 1\n");
    let out = repo.run(&["list", "--stale", "3", "--json"], &at(JAN_10));
    let v: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!(
        v["rows"],
        serde_json::json!([{
            "id": 2,
            "piece": "Render",
            "status": "in-progress",
            "owner": "huey",
            "lastRev": 3,
            "lastAt": "2027-01-05T00:00:00.000Z"
        }])
    );
    assert_eq!((&v["revision"], &v["days"]), (&4.into(), &3.into()));
}

#[test]
fn prime_orients_a_seat_in_a_few_lines() {
    let repo = Repo::new("prime");
    ok(
        &repo,
        &["add", "--piece", "Docs", "--after", "1"],
        "lead-add-0001",
        "lead",
        "ok lead-add-0001 rev 2 add 4 queued",
    );
    let out = repo.run(&["prime", "darkwing"], &[]);
    let text = out.ok();
    assert_eq!(text, PRIME_DARKWING);
    // Well under 1,500 tokens: at about four characters a token, under 6,000 characters.
    assert!(text.len() < 4_000, "{} characters", text.len());
    // The seat comes from MOSAIC_AGENT_NAME when not given, and --json carries the same parts.
    let out = repo.run(&["prime"], &[("MOSAIC_AGENT_NAME", "darkwing")]);
    assert_eq!(out.ok(), PRIME_DARKWING);
    let out = repo.run(&["prime", "huey", "--json"], &[]);
    let v: Value = serde_json::from_str(out.ok()).unwrap();
    assert_eq!((&v["seat"], &v["role"]), (&"huey".into(), &"seat".into()));
    assert_eq!(v["next"]["id"], 2);
    assert_eq!(v["rows"], serde_json::json!([]));
    assert_eq!(
        v["passed"],
        serde_json::json!([
            {"id": 1, "why": "owned by darkwing"},
            {"id": 3, "why": "parked"},
            {"id": 4, "why": "waiting on #1"}
        ])
    );
    assert_eq!(v["rules"].as_array().unwrap().len(), 7);
    let out = repo.run(&["prime", "lead"], &[]);
    assert!(
        out.ok().contains("you are lead, the lead seat."),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("mosaic-queue list --stale 3"));
    let out = repo.run(&["prime"], &[]);
    assert_eq!(
        out.fails(2),
        "mosaic-queue: refused: prime needs a seat: pass `mosaic-queue prime SEAT` or set MOSAIC_AGENT_NAME"
    );
}

const PRIME_DARKWING: &str = "\
mosaic-queue prime: you are darkwing, a seat. Queue at rev 2.

Your open rows:
  row 1 Parser: queued

Next: row 1 Parser (queued, yours): `mosaic-queue take --op OP --by darkwing` claims it.
Passed over:
  row 3: parked
  row 4: waiting on #1

Rules:
- Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.
- Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.
- Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.
- Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.
- You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs --candidate FILE|REV, -> blocked needs --reason; in-review -> in-progress when changes are asked.
- You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.
- The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done.

Commands (--by may be left out when MOSAIC_AGENT_NAME is set):
  mosaic-queue take --op OP --by darkwing      claim what next names and start it
  mosaic-queue next darkwing --explain         what next gives and why
  mosaic-queue show ID                         one row
  mosaic-queue move ID in-review --candidate FILE|REV --op OP --by darkwing
  mosaic-queue move ID blocked --reason TEXT --op OP --by darkwing
  mosaic-queue release ID --op OP --by darkwing
  mosaic-queue note ID TEXT --op OP --by darkwing
  mosaic-queue wait ID --status in-review,done --timeout 600
  mosaic-queue sync --op OP                    is that op in the log and durable?
";
