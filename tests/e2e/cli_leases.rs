//! Leases through the real binary, with the clock the fault-injection build reads from
//! `MOSAIC_NOW_MS`: sixteen seats race `take` over one expired claim and exactly one reclaims
//! it with a gap-free log; a hostile heartbeat file leaves the claim unknown, nothing is
//! reclaimed, and doctor names the file.

use std::sync::Barrier;

use support::{Out, Repo};

/// 2027-01-01T00:00:00.000Z: every entry of these tests is stamped after genesis.
const T0: &str = "1798761600000";
/// Ten minutes later: a lease of 1m taken at `T0` has long expired.
const LATER: &str = "1798762200000";

fn at(repo: &Repo, when: &str, args: &[&str]) -> Out {
    repo.run(args, &[("MOSAIC_NOW_MS", when)])
}

/// huey takes row 2 (the one free row after genesis) with a lease of a minute at `T0`.
fn huey_holds_row_2(repo: &Repo) {
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
