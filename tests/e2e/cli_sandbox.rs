//! `verify --snapshot` in the wasmtime sandbox through the real binary: a copy of the binary
//! alone in a scratch directory outside any repository still verifies (the module is embedded),
//! and the fault-injection caps make it refuse with exit 2 naming the fuel or the memory cap.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::run_in;

/// A scratch directory with the golden `basic` pair in `snap/`; removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/golden/basic")
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "mosaic-queue-sandbox-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("snap")).unwrap();
    std::fs::copy(fixtures().join("queue.json"), dir.join("snap/queue.json")).unwrap();
    let mut md = b"# Queue\n\n<!-- mosaic-queue:begin -->\n".to_vec();
    md.extend(std::fs::read(fixtures().join("body.md")).unwrap());
    md.extend(b"<!-- mosaic-queue:end -->\n");
    std::fs::write(dir.join("snap/QUEUE.md"), md).unwrap();
    Scratch(dir)
}

#[test]
fn a_lone_copy_of_the_binary_verifies_outside_any_repository() {
    let tmp = scratch("lone");
    let bin = tmp.0.join("mosaic-queue");
    // Copied by `cp`, never with a write descriptor of this process: a process another test
    // thread forks meanwhile would inherit it, and running the copy would fail with "Text file
    // busy" (ETXTBSY) until that child execs.
    let copied = Command::new("cp")
        .arg(support::bin())
        .arg(&bin)
        .status()
        .unwrap();
    assert!(copied.success());
    let snap = tmp.0.join("snap");
    let base = snap.join("queue.json");
    let out = Command::new(&bin)
        .args(["verify", "--snapshot", "snap", "--base"])
        .arg(&base)
        .current_dir(&tmp.0)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok verify --snapshot rev 16 (extends base rev 16)\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn running_out_of_fuel_refuses_with_exit_2_naming_the_cap() {
    let tmp = scratch("fuel");
    let out = run_in(
        &tmp.0,
        &["verify", "--snapshot", "snap"],
        &[("MOSAIC_SANDBOX_FUEL", "50000")],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: verify --snapshot: the sandbox ran out of fuel (cap 50000) before a \
         verdict, so the snapshot is not certified: the cap is many times what a 100k-entry \
         queue needs, so check that these are the files you meant"
    );
    // The same files pass under the shipped caps.
    let out = run_in(&tmp.0, &["verify", "--snapshot", "snap"], &[]);
    assert_eq!(out.ok(), "ok verify --snapshot rev 16\n");
}

#[test]
fn running_out_of_memory_refuses_with_exit_2_naming_the_cap() {
    let tmp = scratch("memory");
    // 8 MiB of queue.json cannot be copied into a 4 MiB sandbox.
    let mut big = std::fs::read(tmp.0.join("snap/queue.json")).unwrap();
    big.resize(8 << 20, b' ');
    std::fs::write(tmp.0.join("snap/queue.json"), big).unwrap();
    let out = run_in(
        &tmp.0,
        &["verify", "--snapshot", "snap"],
        &[("MOSAIC_SANDBOX_MEMORY_MIB", "4")],
    );
    assert_eq!(
        out.fails(2),
        "mosaic-queue: verify --snapshot: the sandbox ran out of memory (cap 4 MiB) before a \
         verdict, so the snapshot is not certified: the cap is many times what a 100k-entry \
         queue needs, so check that these are the files you meant"
    );
    // Under the shipped caps the same bytes get the core's own verdict on them.
    let out = run_in(&tmp.0, &["verify", "--snapshot", "snap"], &[]);
    assert!(
        out.fails(2)
            .starts_with("mosaic-queue: snapshot queue.json "),
        "{}",
        out.stderr
    );
}

#[test]
fn the_version_line_says_the_binary_carries_the_sandbox() {
    let tmp = scratch("version");
    let out = run_in(&tmp.0, &["--version"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    let line = out.stdout.strip_suffix('\n').expect("one line");
    let sizes = line
        .strip_prefix(concat!(
            "mosaic-queue ",
            env!("CARGO_PKG_VERSION"),
            " (sandbox: wasm32 module of "
        ))
        .and_then(|rest| rest.strip_suffix(" KiB of native code; no compiler in this binary)"))
        .unwrap_or_else(|| panic!("{line}"));
    let (wasm, native) = sizes
        .split_once(" KiB, compiled at build time to ")
        .unwrap_or_else(|| panic!("{line}"));
    // A module exists: both sizes are counted, not zero.
    for kib in [wasm, native] {
        assert!(kib.parse::<u32>().is_ok_and(|n| n > 0), "{line}");
    }
}
