//! Leases through the real binary, with the clock the fault-injection build reads from
//! `MOSAIC_NOW_MS`: sixteen seats race `take` over one expired claim and exactly one reclaims
//! it with a gap-free log; a hostile heartbeat file leaves the claim unknown, nothing is
//! reclaimed, and doctor names the file; `wait` wakes on a reclaim; a running MCP server
//! renews its seat's claims.

use std::sync::Barrier;

use support::{Out, Repo};

/// 2027-01-01T00:00:00.000Z: every entry of these tests is stamped after genesis.
pub(crate) const T0: &str = "1798761600000";
/// Ten minutes later: a lease of 1m taken at `T0` has long expired.
pub(crate) const LATER: &str = "1798762200000";

fn at(repo: &Repo, when: &str, args: &[&str]) -> Out {
    repo.run(args, &[("MOSAIC_NOW_MS", when)])
}

/// huey takes row 2 (the one free row after genesis) with a lease of a minute at `T0`.
pub(crate) fn huey_holds_row_2(repo: &Repo) {
    let out = at(
        repo,
        T0,
        &[
            "take",
            "--lease",
            "1m",
            "--op",
            "huey-take-0001",
            "--by",
            "huey",
        ],
    );
    assert_eq!(
        out.ok(),
        "ok huey-take-0001 rev 2 take 2 queued -> in-progress, lease 1m\n"
    );
    assert_eq!(
        repo.read(".git/mosaic-queue.heartbeats/huey"),
        "2027-01-01T00:00:00.000Z\n"
    );
}

#[test]
fn sixteen_seats_race_to_reclaim_one_expired_claim_and_one_wins() {
    const SEATS: usize = 16;
    let repo = Repo::new("lease-race");
    huey_holds_row_2(&repo);
    let seats: Vec<String> = (0..SEATS).map(|s| format!("racer{s:02}")).collect();
    let barrier = Barrier::new(SEATS);
    let outs: Vec<Out> = std::thread::scope(|s| {
        let handles: Vec<_> = seats
            .iter()
            .map(|seat| {
                let (repo, barrier) = (&repo, &barrier);
                s.spawn(move || {
                    let op = format!("{seat}-take");
                    barrier.wait();
                    at(repo, LATER, &["take", "--op", &op, "--by", seat])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<&String> = seats
        .iter()
        .zip(&outs)
        .filter(|(_, o)| o.stdout.contains("reclaimed"))
        .map(|(s, _)| s)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one take reclaims: {outs:?}");
    let winner = winners[0];
    for (seat, out) in seats.iter().zip(&outs) {
        let want = if seat == winner {
            format!(
                "ok {seat}-take rev 3 take 2 reclaimed from huey (last sign of life 2027-01-01T00:00:00.000Z, lease 1m)\n"
            )
        } else {
            // A loser waited for the lock, then found the claim taken: nothing is written.
            String::from("nothing to take\n")
        };
        assert_eq!(out.ok(), want, "{seat}");
    }
    // The log has no gap: genesis, huey's take, the one reclaim.
    assert_eq!(
        repo.ops(),
        [
            "genesis-0001".to_owned(),
            "huey-take-0001".to_owned(),
            format!("{winner}-take")
        ]
    );
    assert_eq!(
        repo.run(&["verify", "--current"], &[]).ok(),
        "ok verify rev 3 (3 entries, witness rev 3), table current\n"
    );
    // The winner's claim carries no lease (no --lease, no default): no sign of life renews
    // it, so no heartbeat of the winner is written.
    let names: Vec<String> = std::fs::read_dir(repo.path(".git/mosaic-queue.heartbeats"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["huey"]);
    // huey is fenced off the row it lost.
    let late = at(
        &repo,
        LATER,
        &[
            "note",
            "2",
            "still here",
            "--op",
            "huey-2-note-1",
            "--by",
            "huey",
        ],
    );
    assert_eq!(
        late.fails(2),
        format!(
            "mosaic-queue: refused: row 2 was reclaimed from huey at rev 3 and {winner} holds it now: huey's changes to it are refused (retries of its earlier ops still answer); `mosaic-queue take` finds other work"
        )
    );
}

/// Puts a hostile file at huey's heartbeat: what it is called, and how it is made.
fn plant(repo: &Repo, name: &str) {
    let path = repo.path(".git/mosaic-queue.heartbeats/huey");
    std::fs::remove_file(&path).unwrap();
    match name {
        "fifo" => {
            let made = std::process::Command::new("mkfifo").arg(&path).status();
            assert!(made.unwrap().success());
        }
        "sparse" => {
            let file = std::fs::File::create(&path).unwrap();
            file.set_len(1 << 30).unwrap();
        }
        "symlink" => {
            let target = repo.path(".git/elsewhere");
            std::fs::write(&target, "2027-01-01T00:09:00.000Z\n").unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
        }
        "directory" => std::fs::create_dir(&path).unwrap(),
        _ => std::fs::write(&path, "garbage\n").unwrap(),
    }
}

#[test]
fn a_hostile_heartbeat_file_leaves_the_claim_unknown_and_doctor_names_it() {
    for name in ["fifo", "sparse", "symlink", "directory", "garbage"] {
        let repo = Repo::new(&format!("lease-{name}"));
        huey_holds_row_2(&repo);
        plant(&repo, name);
        let out = at(
            &repo,
            LATER,
            &["take", "--op", "louie-take-0001", "--by", "louie"],
        );
        assert_eq!(out.ok(), "nothing to take\n", "{name}");
        assert_eq!(repo.ops().len(), 2, "{name}: nothing was written");
        let shown = at(&repo, LATER, &["show", "2"]);
        assert!(
            shown.ok().contains(
                "  claim: huey, lease 1m, ends 2027-01-01T00:01:00.000Z, last sign of life 2027-01-01T00:00:00.000Z: unknown\n"
            ),
            "{name}: {}",
            shown.stdout
        );
        let doctor = at(&repo, LATER, &["doctor"]);
        assert_eq!(doctor.code, 2, "{name}: {doctor:?}");
        let file = repo.path(".git/mosaic-queue.heartbeats/huey");
        let want = format!(
            "claim-unknown: row 2: the claim by huey is past its lease by the log (last sign 2027-01-01T00:00:00.000Z), but its heartbeat {} is missing or unreadable (not a regular file of one timestamp), so no take reclaims it; huey runs `mosaic-queue heartbeat` if it is still at work, else the lead, jason or sage runs `mosaic-queue reclaim 2 --reason TEXT`\n",
            file.display()
        );
        assert!(doctor.stdout.contains(&want), "{name}: {}", doctor.stdout);
    }
}

/// A lease that is not one, or out of bounds, and a lease verb by a seat it is not for: each
/// refused with one line and exit 2, and nothing written.
#[test]
fn bad_leases_and_lease_verbs_by_the_wrong_seat_are_refused_in_one_line() {
    let repo = Repo::new("lease-refusals");
    let bounds =
        "give one from 1m to 24h (60 to 86400 seconds), or none for a claim that never expires";
    for (args, line) in [
        (
            &[
                "take",
                "--lease",
                "2x",
                "--op",
                "huey-take-0001",
                "--by",
                "huey",
            ][..],
            String::from(
                "mosaic-queue: refused: --lease \"2x\": \"2x\" is not a lease: write a whole number of seconds, minutes or hours without spaces, like 90s, 45m or 2h",
            ),
        ),
        (
            &[
                "take",
                "--lease",
                "25h",
                "--op",
                "huey-take-0001",
                "--by",
                "huey",
            ],
            format!(
                "mosaic-queue: refused: --lease \"25h\": a lease of 90000 seconds is out of bounds: {bounds}"
            ),
        ),
        (
            &[
                "lease-default",
                "0s",
                "--op",
                "lead-lease-0001",
                "--by",
                "lead",
            ],
            format!(
                "mosaic-queue: refused: lease \"0s\": a lease of 0 seconds is out of bounds: {bounds}"
            ),
        ),
        (
            &[
                "lease-default",
                "2h",
                "--op",
                "huey-lease-0001",
                "--by",
                "huey",
            ],
            String::from(
                "mosaic-queue: refused: huey may not set the default lease: the lead, jason or sage only",
            ),
        ),
        (
            &[
                "reclaim",
                "1",
                "--reason",
                "gone",
                "--op",
                "huey-1-reclaim",
                "--by",
                "huey",
            ],
            String::from(
                "mosaic-queue: refused: row 1 is queued, not in progress under a seat: there is no claim to end",
            ),
        ),
        (
            &["heartbeat", "--by", "Huey"],
            String::from(
                "mosaic-queue: refused: seat \"Huey\" is not a seat name: use 1 to 32 characters of [a-z0-9-], starting with a letter",
            ),
        ),
    ] {
        assert_eq!(repo.run(args, &[]).fails(2), line, "{args:?}");
    }
    assert_eq!(repo.ops(), ["genesis-0001"]);
    assert!(!repo.path(".git/mosaic-queue.heartbeats").exists());
}

/// `lease-default` sets the lease a take without `--lease` records; `heartbeat` prints its
/// line and `--json` document, and `list` shows the claim under the table.
#[test]
fn the_default_lease_applies_and_the_claim_is_shown() {
    let repo = Repo::new("lease-default");
    let set = at(
        &repo,
        T0,
        &[
            "lease-default",
            "2h",
            "--op",
            "lead-lease-0001",
            "--by",
            "lead",
        ],
    );
    assert_eq!(set.ok(), "ok lead-lease-0001 rev 2 lease-default 2h\n");
    let took = at(
        &repo,
        T0,
        &["take", "--op", "huey-take-0001", "--by", "huey"],
    );
    assert_eq!(
        took.ok(),
        "ok huey-take-0001 rev 3 take 2 queued -> in-progress, lease 2h\n"
    );
    let beat = at(&repo, LATER, &["heartbeat", "--by", "huey"]);
    assert_eq!(beat.ok(), "heartbeat huey at 2027-01-01T00:10:00.000Z\n");
    let json = at(&repo, LATER, &["heartbeat", "--by", "huey", "--json"]);
    assert_eq!(
        json.ok(),
        "{\n  \"verb\": \"heartbeat\",\n  \"seat\": \"huey\",\n  \"at\": \"2027-01-01T00:10:00.000Z\",\n  \"text\": \"heartbeat huey at 2027-01-01T00:10:00.000Z\"\n}\n"
    );
    let list = at(&repo, LATER, &["list"]);
    assert!(
        list.ok().ends_with(
            "\n**Claims**\n\n- row 2: huey, lease 2h, ends 2027-01-01T02:10:00.000Z, last sign of life 2027-01-01T00:10:00.000Z: live\n"
        ),
        "{}",
        list.stdout
    );
}

/// `wait ID --status queued` asleep on its watch wakes on the lead's reclaim and prints the
/// row as `show` gives it.
#[test]
fn wait_wakes_on_a_reclaim() {
    let repo = Repo::new("lease-wait");
    huey_holds_row_2(&repo);
    let mut waiter = support::command(
        &repo.root,
        &["wait", "2", "--status", "queued", "--timeout", "60"],
        &[],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    support::watch::until_watching(waiter.id(), &repo.path(".git"));
    assert!(waiter.try_wait().unwrap().is_none(), "wait returned early");
    let out = at(
        &repo,
        LATER,
        &[
            "reclaim",
            "2",
            "--reason",
            "huey stopped",
            "--op",
            "lead-2-reclaim",
            "--by",
            "lead",
        ],
    );
    assert_eq!(
        out.ok(),
        "ok lead-2-reclaim rev 3 reclaim 2 in-progress -> queued, from huey\n"
    );
    let done = waiter.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(String::from_utf8(done.stderr).unwrap(), "");
    let shown = repo.run(&["show", "2"], &[]).ok().to_owned();
    assert_eq!(String::from_utf8(done.stdout).unwrap(), shown);
    assert!(shown.contains("queued"), "{shown}");
}

/// A running MCP server renews its seat's claims: its first renewal, as it starts, writes the
/// heartbeat with the server's clock.
#[test]
fn the_mcp_server_renews_its_seats_claims_as_it_starts() {
    let repo = Repo::new("lease-mcp-renew");
    huey_holds_row_2(&repo);
    // Thirty seconds after the take, by the server's clock.
    let (mcp, _) =
        support::mcp::Mcp::start(&repo.root, "huey", &[("MOSAIC_NOW_MS", "1798761630000")]);
    let beat = repo.path(".git/mosaic-queue.heartbeats/huey");
    support::watch::until("the server writes huey's heartbeat", || {
        std::fs::read_to_string(&beat).unwrap() != "2027-01-01T00:00:00.000Z\n"
    });
    assert_eq!(
        std::fs::read_to_string(&beat).unwrap(),
        "2027-01-01T00:00:30.000Z\n"
    );
    assert!(mcp.close().success());
}

/// `next --explain` names an expired claim it would have `take` reclaim, and why, in text and
/// in its document.
#[test]
fn next_explain_says_why_take_would_reclaim() {
    let repo = Repo::new("lease-explain");
    huey_holds_row_2(&repo);
    let text = at(&repo, LATER, &["next", "louie", "--explain"]);
    let text = text.ok();
    assert!(
        text.contains("\ntake reclaims it: claim by huey expired 9 min ago\n"),
        "{text}"
    );
    let doc = at(&repo, LATER, &["next", "louie", "--explain", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(doc.ok()).unwrap();
    assert_eq!(doc["row"]["id"], 2);
    assert_eq!(doc["reclaim"], "claim by huey expired 9 min ago");
    // Before the lease ends there is nothing to reclaim, and the document has no such member.
    let doc = at(&repo, T0, &["next", "louie", "--explain", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(doc.ok()).unwrap();
    assert_eq!(doc.get("reclaim"), None, "{doc}");
}
