//! `demo` whose reader goes away, through a real pipe: the demo runs to its end, keeps the
//! checkout its first line names (whole: every step logged, the table current), and says so
//! in one line on stderr with exit 1, as any command whose stdout is closed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::{bin, command, run_in};

/// Removes a demo checkout when dropped, also after a failed assertion.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The line a demo whose stdout closed ends with, for the checkout at `dir`.
fn kept_line(dir: &Path) -> String {
    format!(
        "mosaic-queue: cannot write to stdout: Broken pipe (os error 32); the demo ran to its end and its checkout is kept at {}: cd there to try it, or run the demo again without the pipe to read all it printed\n",
        dir.display()
    )
}

/// The demo checkout a kept line names.
fn kept_dir(stderr: &str) -> PathBuf {
    let rest = stderr
        .split_once("its checkout is kept at ")
        .unwrap_or_else(|| panic!("no checkout named: {stderr:?}"))
        .1;
    PathBuf::from(rest.split_once(": cd there").unwrap().0)
}

/// The checkout is the demo's whole: it verifies with a current table, and its log holds
/// every op the demo's steps write, the last step's included.
fn assert_whole(dir: &Path) {
    assert!(dir.starts_with(std::env::temp_dir().canonicalize().unwrap()));
    let verify = run_in(dir, &["verify", "--current"], &[]);
    assert!(
        verify.ok().starts_with("ok verify rev 7 "),
        "{}",
        verify.stdout
    );
    let log = run_in(dir, &["log", "--json"], &[]);
    let log: serde_json::Value = serde_json::from_str(log.ok()).unwrap();
    let ops: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["op"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        [
            "flicker-3-note-1",
            "darkwing-1-block-1",
            "huey-take-1",
            "lead-add-node-docs",
            "lead-add-node-shim",
            "darkwing-2-start-1",
            "jason-genesis-demo"
        ]
    );
}

#[test]
fn a_demo_whose_reader_is_gone_runs_to_its_end_and_keeps_its_checkout() {
    // The read end closed before the demo starts: its first line already fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = command(Path::new("/"), &["demo"], &[])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let dir = kept_dir(&stderr);
    let _cleanup = Scratch(dir.clone());
    assert_eq!(
        (out.status.code(), stderr.as_str()),
        (Some(1), kept_line(&dir).as_str())
    );
    assert_whole(&dir);
}

#[test]
fn demo_piped_to_head_keeps_the_checkout_its_first_line_names() {
    // `mosaic-queue demo | head -1` in a shell; the demo's exit and stderr kept aside.
    let scratch = std::env::temp_dir().join(format!("mosaic-demo-head-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let _scratch = Scratch(scratch.clone());
    let script = format!(
        "{{ '{}' demo 2>'{}/err'; echo $? >'{}/rc'; }} | head -1",
        bin(),
        scratch.display(),
        scratch.display()
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .current_dir("/")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let first = String::from_utf8(out.stdout).unwrap();
    let dir = PathBuf::from(
        first
            .strip_prefix("demo checkout: ")
            .and_then(|l| l.strip_suffix('\n'))
            .unwrap_or_else(|| panic!("head printed {first:?}")),
    );
    let _cleanup = Scratch(dir.clone());
    let rc = std::fs::read_to_string(scratch.join("rc")).unwrap();
    let stderr = std::fs::read_to_string(scratch.join("err")).unwrap();
    // head goes away long before the demo's next write (its genesis and git commits come
    // first), so the demo meets a closed pipe; should head still be reading at the end, the
    // demo printed everything and succeeded. Either way the checkout is whole and kept.
    match rc.trim() {
        "1" => assert_eq!(stderr, kept_line(&dir)),
        "0" => assert_eq!(stderr, ""),
        other => panic!("demo exited {other}: {stderr}"),
    }
    assert_whole(&dir);
}
