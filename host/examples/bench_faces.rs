//! bench-faces: one 100k-entry queue verified by each face of the core, in one run: native
//! `verify_snapshot` against the wasmtime sandbox (module load timed apart), and the Node
//! shim's verify against native `Queue::verify`; then the demo's small queue through the
//! release binary, whole process: `verify --snapshot` against `verify`. Run: `cargo build
//! --release -p mosaic-queue`, then `cargo run --release -p mosaic-queue --example bench-faces`
//! (the Node figures need `node` and the built shim in node-shim/pkg).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mosaic_queue::sandbox::{self, Caps, Sandbox};
use mosaic_queue_core::{Queue, markdown};

use support::workload::{Origin, Shape, Sim};

// ---- targets ----

const SANDBOX_TARGET: f64 = 2.0;
const DEMO_TARGET: f64 = 3.0;
const NODE_TARGET: f64 = 3.0;
/// The Node module's size goal (docs/migration.md says why it is no longer 250 KB).
const NODE_WASM_TARGET: u64 = 500 * 1000;

/// Log entries in the benchmarked queue, and the prefix used as its base.
const ENTRIES: u64 = 100_000;
const BASE_ENTRIES: u64 = 50_000;
/// Timed runs per median.
const RUNS: usize = 7;

const QUEUE_MD: &str = "# Queue\n\n<!-- mosaic-queue:begin -->\n<!-- mosaic-queue:end -->\n";

/// The snapshot under test: queue.json, QUEUE.md and a base it extends.
struct Snapshot {
    json: Vec<u8>,
    md: Vec<u8>,
    base: Vec<u8>,
}

fn generate() -> Snapshot {
    let mut sim = Sim::new(
        Shape {
            genesis_rows: 40,
            max_rows: 40,
            add_every: u64::MAX,
        },
        Origin {
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            legacy_view: String::from("| # | Piece |\n| --- | --- |\n"),
        },
    );
    let mut base = Vec::new();
    while sim.queue.revision() < ENTRIES {
        sim.step();
        if sim.queue.revision() == BASE_ENTRIES {
            base = sim.queue.to_bytes();
        }
    }
    let md = markdown::splice(QUEUE_MD, &sim.queue.render_body()).expect("QUEUE_MD has markers");
    Snapshot {
        json: sim.queue.to_bytes(),
        md: md.into_bytes(),
        base,
    }
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

/// Native against sandbox on one case; the answers must agree before anything is timed.
fn sandbox_case(sandbox: &Sandbox, name: &str, snap: &Snapshot, base: Option<&[u8]>) {
    let caps = Caps::shipped();
    let want = sandbox::native(&snap.json, &snap.md, base);
    let (got, usage) = sandbox.verify_metered(caps, &snap.json, &snap.md, base);
    assert_eq!(got.expect("the sandbox gives a verdict"), want, "{name}");
    assert!(want.is_ok(), "{name}: the generated snapshot passes");
    let native = median(|| drop(sandbox::native(&snap.json, &snap.md, base)));
    let boxed = median(|| drop(sandbox.verify(caps, &snap.json, &snap.md, base)));
    let ratio = boxed.as_secs_f64() / native.as_secs_f64();
    println!(
        "  {name:<10} native {:>8.1} ms   sandbox {:>8.1} ms   ratio {ratio:.2}x (target <= {SANDBOX_TARGET}x: {})",
        ms(native),
        ms(boxed),
        verdict(ratio <= SANDBOX_TARGET)
    );
    println!(
        "  {:<10} fuel {:.2e} of cap {:.2e} ({:.0}x headroom), memory {:.0} MiB of cap {:.0} MiB ({:.1}x)",
        "",
        usage.fuel as f64,
        caps.fuel as f64,
        caps.fuel as f64 / usage.fuel as f64,
        mib(usage.memory),
        mib(caps.memory),
        caps.memory as f64 / usage.memory as f64
    );
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shim's median verify time and its wasm size, or why there are none.
fn node_figures(file: &Path) -> Result<(f64, u64), String> {
    let script = workspace().join("node-shim/bench/verify-time.mjs");
    if !script.is_file() {
        return Err(format!("{} is missing", script.display()));
    }
    let out = Command::new("node")
        .arg(&script)
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the script exited {}: {}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "unreadable output ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    match (line["ms"].as_f64(), line["wasmBytes"].as_u64()) {
        (Some(ms), Some(bytes)) => Ok((ms, bytes)),
        _ => Err(format!("unexpected output: {line}")),
    }
}

fn main() {
    let started = Instant::now();
    let t = Instant::now();
    let snap = generate();
    println!(
        "bench-faces: {ENTRIES} log entries, queue.json {:.1} MiB, QUEUE.md {:.1} KiB, base ({BASE_ENTRIES} entries) {:.1} MiB; generated in {:.1} s",
        mib(snap.json.len()),
        snap.md.len() as f64 / 1024.0,
        mib(snap.base.len()),
        t.elapsed().as_secs_f64()
    );

    println!();
    println!(
        "wasmtime sandbox (verify --snapshot), {}:",
        sandbox::SUMMARY
    );
    let t = Instant::now();
    let sandbox = Sandbox::embedded().expect("the embedded module loads");
    println!(
        "  module load {:.2} ms (once per process, not in the times below)",
        ms(t.elapsed())
    );
    sandbox_case(&sandbox, "no base", &snap, None);
    sandbox_case(&sandbox, "with base", &snap, Some(&snap.base));

    println!();
    println!("Node shim (verify):");
    let native = median(|| {
        Queue::verify(&snap.json).expect("the generated queue verifies");
    });
    println!("  native Queue::verify {:.1} ms", ms(native));
    let dir = std::env::temp_dir().join(format!("mosaic-bench-faces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the scratch dir");
    let file = dir.join("queue.json");
    std::fs::write(&file, &snap.json).expect("write queue.json");
    match node_figures(&file) {
        Ok((node_ms, wasm_bytes)) => {
            let ratio = node_ms / ms(native);
            println!(
                "  node {node_ms:.1} ms   ratio {ratio:.2}x (target <= {NODE_TARGET}x: {})",
                verdict(ratio <= NODE_TARGET)
            );
            println!(
                "  node wasm file {:.1} KB (target <= {} KB: {})",
                wasm_bytes as f64 / 1000.0,
                NODE_WASM_TARGET / 1000,
                verdict(wasm_bytes <= NODE_WASM_TARGET)
            );
        }
        Err(why) => println!("  node: skipped ({why})"),
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!();
    demo_case();
    println!();
    println!("whole run: {:.1} s", started.elapsed().as_secs_f64());
}

/// Runs the release binary with `args` in `dir`; its stdout, or why it failed.
fn cli(bin: &Path, dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env_remove("MOSAIC_AGENT_NAME")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "mosaic-queue {args:?} exited {}: {}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The demo's checkout: `verify --snapshot` of its files against `verify`, each a whole
/// process (spawn to exit), medians of RUNS after one warm-up.
fn demo_case() {
    println!("the demo queue through the release binary, whole process:");
    let bin = workspace().join("target/release/mosaic-queue");
    if !bin.is_file() {
        println!(
            "  skipped: {} is missing (cargo build --release -p mosaic-queue)",
            bin.display()
        );
        return;
    }
    let here = std::env::temp_dir();
    let demo = match cli(&bin, &here, &["demo"]) {
        Ok(out) => out,
        Err(why) => return println!("  skipped: {why}"),
    };
    let Some(root) = demo
        .lines()
        .find_map(|l| l.strip_prefix("demo checkout: "))
        .map(PathBuf::from)
    else {
        return println!("  skipped: the demo printed no checkout");
    };
    let snap = root.with_extension("snapshot");
    let snap_arg = snap.to_string_lossy().into_owned();
    let result = (|| {
        cli(&bin, &root, &["snapshot", "--out", &snap_arg])?;
        let time = |args: &[&str]| -> Result<Duration, String> {
            cli(&bin, &root, args)?;
            let mut times = Vec::new();
            for _ in 0..RUNS {
                let t = Instant::now();
                cli(&bin, &root, args)?;
                times.push(t.elapsed());
            }
            times.sort();
            Ok(times[RUNS / 2])
        };
        Ok::<_, String>((
            time(&["verify"])?,
            time(&["verify", "--snapshot", &snap_arg])?,
        ))
    })();
    let _ = std::fs::remove_dir_all(&snap);
    let _ = std::fs::remove_dir_all(&root);
    match result {
        Ok((native, boxed)) => {
            let ratio = ms(boxed) / ms(native);
            println!(
                "  verify {:.2} ms   verify --snapshot {:.2} ms   ratio {ratio:.2}x (target <= {DEMO_TARGET}x: {})",
                ms(native),
                ms(boxed),
                verdict(ratio <= DEMO_TARGET)
            );
        }
        Err(why) => println!("  skipped: {why}"),
    }
}
