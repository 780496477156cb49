//! The MCP server's renewal timer in real time, on the shipped binary: a seat's server holds
//! a claim with the shortest lease (a minute) for three lease lengths, while another seat's
//! `take` every ten seconds never reclaims it and `show` finds it live each time; then the
//! server is killed (SIGKILL, no goodbye), the claim stays until one lease after the last
//! renewal, and the other seat's `take` reclaims it from then on. About four minutes, nearly
//! all asleep: tests/all.sh runs it beside its later stages (docs/testing.md).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use support::mcp::Mcp;

use super::{Scratch, ok, run, shipped};

/// The shortest lease there is, in milliseconds.
const LEASE: i64 = 60_000;

/// Milliseconds since the epoch of a timestamp of the log's form (`2026-12-01T09:20:00.000Z`).
fn millis(at: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| at[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Days since 1970-01-01 of a proleptic Gregorian date.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + n(11..13)) * 60 + n(14..16)) * 60_000 + n(17..19) * 1000 + n(20..23)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Sleeps until the wall clock reads `at` (milliseconds since the epoch).
fn sleep_until(at: i64) {
    let left = at - now_ms();
    if left > 0 {
        std::thread::sleep(Duration::from_millis(left as u64));
    }
}

#[test]
fn a_server_renews_its_claim_for_three_leases_and_a_killed_one_expires_a_lease_later() {
    assert_eq!(millis("1970-01-01T00:00:01.002Z"), 1_002);
    assert_eq!(millis("2026-12-01T09:20:00.000Z"), 1_796_116_800_000);
    let bin = shipped();
    let scratch = Scratch::new("renewal");
    let tmp = scratch.0.to_str().unwrap();
    let out = ok(run(&bin, &scratch.0, &["demo"], &[("TMPDIR", tmp)]));
    let dir = std::path::PathBuf::from(
        out.lines()
            .next()
            .unwrap()
            .strip_prefix("demo checkout: ")
            .unwrap(),
    );
    // The demo leaves nothing to take; row 7 is queued and nobody's.
    let add = [
        "add",
        "--piece",
        "Renewed",
        "--op",
        "lead-add-renewed",
        "--by",
        "lead",
    ];
    assert_eq!(
        ok(run(&bin, &dir, &add, &[])),
        "ok lead-add-renewed rev 8 add 7 queued\n"
    );
    let mut mcp = Mcp::start_bin(&bin, &dir, "louie");
    let take = mcp.call("take", json!({"op": "louie-take-renewed", "lease": "1m"}));
    assert_eq!(
        (take.is_error, take.json()["text"].clone()),
        (
            false,
            json!("ok louie-take-renewed rev 9 take 7 queued -> in-progress, lease 1m")
        )
    );
    let claim = || -> Value {
        let shown: Value =
            serde_json::from_str(&ok(run(&bin, &dir, &["show", "7", "--json"], &[]))).unwrap();
        shown["claim"].clone()
    };
    let dewey_takes = |n: usize| {
        let op = format!("dewey-take-{n}");
        ok(run(
            &bin,
            &dir,
            &["take", "--op", &op, "--by", "dewey"],
            &[],
        ))
    };

    // Three lease lengths with the server alive: never reclaimable, live at every look.
    let started = Instant::now();
    let mut looks = 0;
    while started.elapsed() < Duration::from_millis(3 * LEASE as u64) {
        std::thread::sleep(Duration::from_secs(10));
        looks += 1;
        assert_eq!(dewey_takes(looks), "nothing to take\n", "look {looks}");
        let c = claim();
        assert_eq!(
            (&c["holder"], &c["lease"], &c["state"]),
            (&json!("louie"), &json!("1m"), &json!("live")),
            "look {looks}: {c}"
        );
    }
    assert!(looks >= 18, "{looks}");

    // Killed: no renewal from now on. The last one was at most a third of the lease ago
    // (a little more on a busy machine), and the claim lasts a lease from it.
    // SAFETY: kill(2) on the server's own pid, which this test started and has not reaped.
    unsafe { libc::kill(mcp.pid() as i32, libc::SIGKILL) };
    let killed = now_ms();
    drop(mcp);
    let c = claim();
    let last = millis(c["lastSign"].as_str().unwrap());
    let end = millis(c["leaseEnd"].as_str().unwrap());
    assert_eq!(end - last, LEASE, "{c}");
    assert!(
        killed - last <= LEASE / 3 + 5_000,
        "the last renewal was {} ms before the kill: {c}",
        killed - last
    );
    sleep_until(end - 3_000);
    assert_eq!(dewey_takes(100), "nothing to take\n");
    assert_eq!(claim()["state"], json!("quiet"));
    sleep_until(end + 200);
    assert_eq!(claim()["state"], json!("expired"));
    assert_eq!(
        dewey_takes(101),
        format!(
            "ok dewey-take-101 rev 10 take 7 reclaimed from louie (last sign of life {}, lease 1m)\n",
            c["lastSign"].as_str().unwrap()
        )
    );
}
