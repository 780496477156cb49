//! bench-mcp: what a warm MCP server answers in, against the same verb run as a process, in
//! one run: a `take` (each followed, untimed, by a `release` so the next one takes again) and
//! a `list` of a queue small enough to fit one answer (so both faces give the same document),
//! as medians and ratios; then the `tools/list` answer's size for a seat, the lead and a
//! privileged person, and the binary's size. Run: `cargo build --release -p mosaic-queue`,
//! then `cargo run --release -p mosaic-queue --example bench-mcp` (`MOSAIC_QUEUE_BIN` names
//! another build of the binary).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use support::bench::{BENCH_QUEUE_MD, Scratch, queued_checkout, release_binary, run_ok};
use support::mcp::Mcp;

/// Rows in the queue (its list is one answer of about 11 KiB), and rounds.
const ROWS: u64 = 40;
const ROUNDS: usize = 60;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Times `f`, which must succeed.
fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn process(bin: &Path, root: &Path, args: &[&str]) -> Duration {
    timed(|| {
        run_ok(bin, root, args);
    })
}

fn main() {
    let bin = release_binary("bench-mcp");
    let scratch = Scratch::new("bench-mcp");
    let root = queued_checkout(&bin, &scratch.0, ROWS, BENCH_QUEUE_MD);
    let mut mcp = Mcp::start_bin(&bin, &root, "server");
    let (mut mcp_take, mut cli_take, mut mcp_list, mut cli_list) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..ROUNDS {
        let op = format!("server-take-{k:04}");
        mcp_take.push(timed(|| {
            let a = mcp.call("take", json!({"op": op}));
            assert!(!a.is_error && a.json()["row"] == 1, "{a:?}");
        }));
        let op = format!("server-release-{k:04}");
        let a = mcp.call("change", json!({"verb": "release", "op": op, "id": 1}));
        assert!(!a.is_error, "{a:?}");
        let op = format!("process-take-{k:04}");
        cli_take.push(process(
            &bin,
            &root,
            &["take", "--op", &op, "--by", "process"],
        ));
        let op = format!("process-release-{k:04}");
        run_ok(
            &bin,
            &root,
            &["release", "1", "--op", &op, "--by", "process"],
        );
        mcp_list.push(timed(|| {
            let a = mcp.call("read", json!({"what": "list"}));
            assert!(
                !a.is_error && a.json()["page"].is_null(),
                "one whole answer"
            );
        }));
        cli_list.push(process(&bin, &root, &["list", "--json"]));
    }
    let mut sizes = Vec::new();
    for seat in ["darkwing", "lead", "jason"] {
        let mut m = Mcp::start_bin(&bin, &root, seat);
        let tools = m.tools();
        sizes.push((seat, serde_json::to_string(&tools).expect("JSON").len()));
        assert_eq!(m.close().code(), Some(0));
    }
    assert_eq!(mcp.close().code(), Some(0));
    let binary = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or(0);

    println!(
        "bench-mcp: {} on a queue of {ROWS} rows, {ROUNDS} rounds",
        bin.display()
    );
    for (what, served, spawned) in [
        ("take", median(mcp_take), median(cli_take)),
        ("list", median(mcp_list), median(cli_list)),
    ] {
        println!(
            "   {what}: warm MCP server median {:.3} ms, process median {:.3} ms, ratio {:.2}",
            ms(served),
            ms(spawned),
            served.as_secs_f64() / spawned.as_secs_f64()
        );
    }
    for (seat, size) in sizes {
        println!("   tools/list for {seat}: {size} bytes (target at most 6000)");
    }
    println!(
        "   binary: {binary} bytes ({:.1} MB; target at most 10 MB stripped)",
        binary as f64 / 1e6
    );
}
