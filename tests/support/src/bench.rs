//! What the benchmark examples share: the binary they drive, a scratch directory removed when
//! dropped, and a committed canonical checkout of queued rows made the way a user makes one
//! (`genesis` from a migration map), so every bench measures the same kind of queue.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::repo::{CLEARED, git};

/// The hand-written QUEUE.md the benches' queues start from.
pub const BENCH_QUEUE_MD: &str =
    "# Queue\n\n<!-- mosaic-queue:begin -->\nlegacy\n<!-- mosaic-queue:end -->\n";

/// The binary a bench drives: `MOSAIC_QUEUE_BIN` when set (another build to compare), else the
/// workspace's release build. Exits 1 naming the build command when it is missing, since a
/// bench of a stale or debug binary would print misleading figures.
pub fn release_binary(bench: &str) -> PathBuf {
    let bin = std::env::var_os("MOSAIC_QUEUE_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/mosaic-queue"),
        PathBuf::from,
    );
    bin.canonicalize().unwrap_or_else(|_| {
        eprintln!(
            "{bench}: the binary {} is missing; build it first with \
             `cargo build --release -p mosaic-queue`",
            bin.display()
        );
        std::process::exit(1);
    })
}

/// A bench's scratch directory under the system temp dir, canonicalized (the CLI compares its
/// root by real path); removed when dropped, also after a panic.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(bench: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mosaic-{bench}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch dir");
        Scratch(dir.canonicalize().expect("canonical scratch dir"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A git repository at `<dir>/repo` on `main` with `queue_md` committed by hand as
/// docs/plans/QUEUE.md, before any genesis. Returns the checkout's root and QUEUE.md's blob.
pub fn new_repo(dir: &Path, queue_md: &str) -> (PathBuf, String) {
    let root = dir.join("repo");
    std::fs::create_dir_all(root.join("docs/plans")).expect("create the scratch repo");
    let root = root.canonicalize().expect("canonical root");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Bench Seat"]);
    git(&root, &["config", "user.email", "bench@example.invalid"]);
    git(&root, &["config", "commit.gpgsign", "false"]);
    std::fs::write(root.join("docs/plans/QUEUE.md"), queue_md).expect("write QUEUE.md");
    git(&root, &["add", "docs/plans/QUEUE.md"]);
    git(&root, &["commit", "-q", "-m", "QUEUE.md by hand"]);
    let blob = git(&root, &["hash-object", "docs/plans/QUEUE.md"]);
    (root, blob)
}

/// [`new_repo`] whose queue is then `rows` unowned queued rows, after `genesis` from a map at
/// `<dir>/map.md`, committed. Returns the checkout's root.
pub fn queued_checkout(bin: &Path, dir: &Path, rows: u64, queue_md: &str) -> PathBuf {
    let (root, blob) = new_repo(dir, queue_md);
    let mut map = format!(
        "source: docs/plans/QUEUE.md blob {blob}\n\n\
         | # | Piece | Owner | Status | Gate | Issues | Note |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for id in 1..=rows {
        map.push_str(&format!(
            "| {id} | Piece {id} | | queued | | #{} | |\n",
            100 + id
        ));
    }
    let map_path = dir.join("map.md");
    std::fs::write(&map_path, map).expect("write the map");
    let map_arg = map_path.to_string_lossy().into_owned();
    let args = [
        "genesis",
        "--map",
        &map_arg,
        "--op",
        "bench-genesis",
        "--by",
        "jason",
    ];
    run_ok(bin, &root, &args);
    git(&root, &["add", "docs/plans"]);
    git(&root, &["commit", "-q", "-m", "queue genesis"]);
    root
}

/// `cmd` with the variables that would point the binary at another repository or change how
/// it behaves removed (those the end-to-end tests remove), and no stdin: how the benches run
/// the binary.
pub fn cleared(mut cmd: Command) -> Command {
    for var in CLEARED {
        cmd.env_remove(var);
    }
    cmd.stdin(Stdio::null());
    cmd
}

/// Runs `bin` with `args` in `dir`, which must succeed; its stdout.
pub fn run_ok(bin: &Path, dir: &Path, args: &[&str]) -> String {
    let out = cleared(Command::new(bin))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "bench bug: {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
