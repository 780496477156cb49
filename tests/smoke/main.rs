//! The smoke suite: the binary as shipped, built without the `fault-injection` feature, run as
//! a person runs it (the demo, a write, `verify --snapshot`, the MCP server's tool list, the
//! gate), each answer compared with the text written here. It also holds that the test seams
//! are compiled out: their variables' names are not in the binary, and setting them changes
//! nothing; and (`renewal`) the MCP server's renewals in real time, for about four minutes.
//! tests/all.sh builds that binary and names it in `MOSAIC_SHIPPED_BIN`; this target is not
//! part of `cargo test --workspace` (its build has the seams), only of tests/all.sh.

mod renewal;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use support::mcp::{Mcp, tool_names};

/// The binary under test: the shipped build tests/all.sh made.
fn shipped() -> PathBuf {
    let path = std::env::var_os("MOSAIC_SHIPPED_BIN").unwrap_or_else(|| {
        panic!(
            "MOSAIC_SHIPPED_BIN is not set: build the shipped binary (cargo build -p mosaic-queue --bin mosaic-queue), copy it out of target/debug and name the copy there, as tests/all.sh does"
        )
    });
    let path = PathBuf::from(path);
    assert!(path.is_file(), "{} is not a file", path.display());
    path
}

/// The seams' variables: a build that reads one has its name in the binary.
const SEAMS: &[&str] = &[
    "MOSAIC_KILL_AT",
    "MOSAIC_LOCK_WAIT_MS",
    "MOSAIC_BOOT_ID",
    "MOSAIC_NOW_MS",
    "MOSAIC_GITEA_DEADLINE_MS",
    "MOSAIC_SANDBOX_FUEL",
    "MOSAIC_SANDBOX_MEMORY_MIB",
    "MOSAIC_IO_TRACE",
    "MOSAIC_IO_FAIL",
    "MOSAIC_MCP_MAX_ANSWER",
    "MOSAIC_MCP_FINISH_MS",
];

/// The seams' names found in `binary`: one pass for every `MOSAIC_`, then the names there.
fn names_in(binary: &Path) -> Vec<&'static str> {
    let bytes = std::fs::read(binary).unwrap();
    let prefix = b"MOSAIC_";
    let starts: Vec<usize> = bytes
        .windows(prefix.len())
        .enumerate()
        .filter(|(_, w)| w == prefix)
        .map(|(i, _)| i)
        .collect();
    SEAMS
        .iter()
        .copied()
        .filter(|name| {
            starts
                .iter()
                .any(|&i| bytes[i..].starts_with(name.as_bytes()))
        })
        .collect()
}

/// The shipped binary names no seam, and the check sees them where they are: in the build the
/// end-to-end tests run, every one.
#[test]
fn the_shipped_binary_has_no_test_seams() {
    assert_eq!(names_in(&shipped()), Vec::<&str>::new());
    assert_eq!(names_in(Path::new(support::bin())), SEAMS);
}

/// `bin args` in `dir` with `env` and nothing else of this process's environment but PATH
/// and HOME.
fn run(bin: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::null());
    for var in ["PATH", "HOME"] {
        if let Some(v) = std::env::var_os(var) {
            cmd.env(var, v);
        }
    }
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

/// Exit 0, nothing on stderr; stdout.
#[track_caller]
fn ok(out: Output) -> String {
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(
        (out.status.code(), stderr.as_str()),
        (Some(0), ""),
        "{stdout}"
    );
    stdout
}

/// A scratch folder for the demo's checkout, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mosaic-smoke-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir.canonicalize().unwrap())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The demo's whole output, its checkout and binary put in.
fn demo_text(dir: &str, bin: &str) -> String {
    DEMO.replace("{dir}", dir).replace("{bin}", bin)
}

const DEMO: &str = "demo checkout: {dir}

$ mosaic-queue genesis --map agents/darkwing/work/queue-migration-map.md --op jason-genesis-demo --by jason
ok jason-genesis-demo rev 1 genesis 4 rows on main from blob dbbf29b01c5f
$ git commit -m 'queue genesis' docs/plans
$ mosaic-queue install-hook --by jason
ok install-hook .git/hooks/pre-commit (61eaed164196)
# darkwing takes row 2
$ mosaic-queue move 2 in-progress --op darkwing-2-start-1 --by darkwing
ok darkwing-2-start-1 rev 2 move 2 queued -> in-progress
# the lead adds a row
$ mosaic-queue add --piece 'Node shim' --issues 1520 --note 'after the core' --op lead-add-node-shim --by lead
ok lead-add-node-shim rev 3 add 5 queued
# the lead adds a row that waits on row 5
$ mosaic-queue add --piece 'Node docs' --after 5 --op lead-add-node-docs --by lead
ok lead-add-node-docs rev 4 add 6 queued
# what would huey get, and why not the other rows?
$ mosaic-queue next huey --explain
row 5: Node shim
  status: queued
  owner: -
  gate: -
  issues: #1520
  closes: #1520
  reviewers: -
  brief: -
  note: after the core
  rev: 4
passed over:
  row 1: owned by darkwing
  row 2: owned by darkwing
  row 3: blocked
  row 4: parked
  row 6: waiting on #5
# huey takes it: the claim and the start are one entry under the lock
$ mosaic-queue take --op huey-take-1 --by huey
ok huey-take-1 rev 5 take 5 queued -> in-progress
# nothing left for louie: row 6 waits on row 5; nothing is written
$ mosaic-queue take --op louie-take-1 --by louie
nothing to take
# darkwing blocks row 1, with the reason the table shows
$ mosaic-queue move 1 blocked --reason 'waiting on the host' --op darkwing-1-block-1 --by darkwing
ok darkwing-1-block-1 rev 6 move 1 in-progress -> blocked
# flicker notes its own row
$ mosaic-queue note 3 'unblocked once #1508 lands' --op flicker-3-note-1 --by flicker
ok flicker-3-note-1 rev 7 note 3
# refused: flicker does not own row 2; nothing is written
$ mosaic-queue release 2 --op flicker-2-release-1 --by flicker
mosaic-queue: refused: flicker may not release row 2: the owner, jason or sage (exit 2)
# a retry of an acknowledged op: its original receipt, nothing written
$ mosaic-queue move 2 in-progress --op darkwing-2-start-1 --by darkwing
ok darkwing-2-start-1 rev 2 move 2 queued -> in-progress
# doctor: anything stuck, and the command that cures it
$ mosaic-queue doctor
ok doctor rev 7: nothing needs doing

docs/plans/QUEUE.md:

# Queue

Hand-written header: how the team uses this table. The table between the markers is generated
by mosaic-queue; change it with queue ops, never by hand.

<!-- mosaic-queue:begin -->
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Queue as data | darkwing | blocked: waiting on the host | jason | #1508 | section 8 of the plan |
| 2 | Review requests | darkwing | in-progress |  | #1510, #1511 | piece D |
| 3 | Dispatcher cleanup | flicker | blocked |  | #1499 | unblocked once #1508 lands |
| 5 | Node shim | huey | in-progress |  | #1520 | after the core |
| 6 | Node docs |  | queued (waits on #5) |  |  |  |

**Parked**

- 4 Old dashboard
<!-- mosaic-queue:end -->

Try next (each line as printed, in a POSIX shell):
  cd {dir}
  {bin} list
  {bin} next darkwing --explain
  {bin} prime huey
  {bin} move 2 in-review --candidate HEAD --issue 1510 --op darkwing-2-review-1 --by darkwing
  {bin} verify --current
  {bin} log 2 --limit 3
";

/// The demo, then in its checkout a write (with every seam's variable set, to no effect),
/// `verify`, a snapshot and `verify --snapshot`, the MCP server's tool list, and the gate.
#[test]
fn the_shipped_binary_runs_the_demo_a_write_a_snapshot_mcp_and_the_gate() {
    let bin = shipped();
    let scratch = Scratch::new("demo");
    let tmp = scratch.0.to_str().unwrap();
    let out = ok(run(&bin, &scratch.0, &["demo"], &[("TMPDIR", tmp)]));
    let first = out.lines().next().unwrap();
    let dir = PathBuf::from(first.strip_prefix("demo checkout: ").unwrap());
    assert_eq!(dir.parent(), Some(scratch.0.as_path()), "{first}");
    let shown = dir.to_str().unwrap();
    assert_eq!(out, demo_text(shown, bin.to_str().unwrap()));

    // A write: the seams' variables ask for a kill at the receipt, a clock at 1970 and a
    // failing fsync; the shipped binary reads none of them.
    let seams = [
        ("MOSAIC_KILL_AT", "receipt-printed"),
        ("MOSAIC_NOW_MS", "0"),
        ("MOSAIC_IO_FAIL", "1:eio"),
        ("MOSAIC_LOCK_WAIT_MS", "0"),
    ];
    let note = [
        "note",
        "2",
        "from the shipped binary",
        "--op",
        "darkwing-2-note-smoke",
        "--by",
        "darkwing",
    ];
    assert_eq!(
        ok(run(&bin, &dir, &note, &seams)),
        "ok darkwing-2-note-smoke rev 8 note 2\n"
    );
    let queue: Value =
        serde_json::from_slice(&std::fs::read(dir.join("docs/plans/queue.json")).unwrap()).unwrap();
    let entry = &queue["log"][7];
    assert_eq!(
        (&entry["op"], &entry["by"]),
        (&json!("darkwing-2-note-smoke"), &json!("darkwing"))
    );
    assert!(
        !entry["at"].as_str().unwrap().starts_with("1970"),
        "{entry}"
    );
    assert_eq!(
        ok(run(&bin, &dir, &["verify"], &[])),
        "ok verify rev 8 (8 entries, witness rev 8)\n"
    );

    // A snapshot, verified in the wasmtime sandbox.
    let snap = scratch.0.join("snapshot");
    let snap_arg = snap.to_str().unwrap();
    assert_eq!(
        ok(run(&bin, &dir, &["snapshot", "--out", snap_arg], &[])),
        format!("ok snapshot rev 8 -> {snap_arg}\n")
    );
    assert_eq!(
        ok(run(
            &bin,
            &scratch.0,
            &["verify", "--snapshot", snap_arg],
            &[]
        )),
        "ok verify --snapshot rev 8\n"
    );

    // The MCP server: its name and a seat's seven tools.
    let mut mcp = Mcp::start_bin(&bin, &dir, "darkwing");
    let tools = mcp.tools();
    assert_eq!(
        tool_names(&tools),
        [
            "orient", "read", "take", "change", "wait", "confirm", "review"
        ]
    );
    let take = mcp.call("take", json!({"op": "darkwing-take-smoke"}));
    assert_eq!(
        (take.is_error, take.json()["text"].clone()),
        (
            false,
            json!("nothing to take: darkwing has row 2 in progress")
        )
    );
    assert_eq!(mcp.close().code(), Some(0));

    // The gate: one verb as the key's seat, and a refusal.
    let gate = |command: &str| {
        let root = dir.to_str().unwrap();
        let args = ["gate", "--seat", "huey", "--root", root];
        run(
            &bin,
            &scratch.0,
            &args,
            &[("SSH_ORIGINAL_COMMAND", command)],
        )
    };
    assert_eq!(
        ok(gate("note 5 'over the gate' --op huey-5-note-gate")),
        "ok huey-5-note-gate rev 9 note 5\n"
    );
    let refused = gate("note 5 x --op huey-5-note-as --by jason");
    assert_eq!(
        (
            refused.status.code(),
            String::from_utf8(refused.stdout).unwrap(),
            String::from_utf8(refused.stderr).unwrap()
        ),
        (
            Some(2),
            String::new(),
            "mosaic-queue: refused: this key acts as huey only, not jason; leave --by out, since every command through it acts as huey\n".to_owned()
        )
    );
}
