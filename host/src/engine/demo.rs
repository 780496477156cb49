//! `demo`: builds a scratch canonical checkout under the system temp dir and runs genesis and a
//! few seats' changes in it (a take, a `next --explain`, one refused, one retried) through the
//! same functions every face calls, each step given as a seat would type it and run by the
//! face's own parser (`StepRunner`), then gives the table and the commands to try next. The
//! working directory does not matter.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::request::Request;
use crate::change::genesis::genesis_in;
use crate::change::{change_in, take_in};
use crate::checkout;
pub use crate::checkout::Paths;
use crate::guard::install_hook_in;
use crate::named_files::read_queue_md;
use crate::read::explain::next_explained_in;
use crate::reply::{Failure, Replied, Reply};
use crate::store::session;
use crate::store::world::World;
use crate::values::check_op;

/// The sample migration map's table: the rows the demo checkout starts from.
const MAP_TABLE: &str = "\
| # | Piece | Owner | Status | Gate | Issues | Note |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | Queue as data | darkwing | in-progress | jason | #1508 | section 8 of the plan |
| 2 | Review requests | | queued | | #1510, #1511 | piece D |
| 3 | Dispatcher cleanup | flicker | blocked | | #1499 | |
| 4 | Old dashboard | | parked | | | |
";

const QUEUE_MD: &str = "\
# Queue

Hand-written header: how the team uses this table. The table between the markers is generated
by mosaic-queue; change it with queue ops, never by hand.

<!-- mosaic-queue:begin -->
(the legacy table; genesis keeps it as the legacy view)
<!-- mosaic-queue:end -->
";

/// Where the map lives in the checkout, as in the contract's bootstrap.
const MAP_PATH: &str = "agents/darkwing/work/queue-migration-map.md";

/// The wrappers a checkout ships, committed before genesis like the contract's bootstrap.
const SCRIPTS: [(&str, &str); 2] = [
    (
        "scripts/git-hooks/pre-commit",
        include_str!("../../scripts/git-hooks/pre-commit"),
    ),
    (
        "scripts/queue-commit.sh",
        include_str!("../../scripts/queue-commit.sh"),
    ),
];

/// The changes the demo runs, as a seat would type them (single quotes group words), each with
/// what it shows: a read explains what `next` gives, most steps apply, one takes nothing, one is
/// refused, and the last retries the first.
pub const STEPS: &[(&str, &str)] = &[
    (
        "darkwing takes row 2",
        "move 2 in-progress --op darkwing-2-start-1 --by darkwing",
    ),
    (
        "the lead adds a row",
        "add --piece 'Node shim' --issues 1520 --note 'after the core' --op lead-add-node-shim --by lead",
    ),
    (
        "the lead adds a row that waits on row 5",
        "add --piece 'Node docs' --after 5 --op lead-add-node-docs --by lead",
    ),
    (
        "what would huey get, and why not the other rows?",
        "next huey --explain",
    ),
    (
        "huey takes it: the claim and the start are one entry under the lock",
        "take --op huey-take-1 --by huey",
    ),
    (
        "nothing left for louie: row 6 waits on row 5; nothing is written",
        "take --op louie-take-1 --by louie",
    ),
    (
        "darkwing blocks row 1, with the reason the table shows",
        "move 1 blocked --reason 'waiting on the host' --op darkwing-1-block-1 --by darkwing",
    ),
    (
        "flicker notes its own row",
        "note 3 'unblocked once #1508 lands' --op flicker-3-note-1 --by flicker",
    ),
    (
        "refused: flicker does not own row 2; nothing is written",
        "release 2 --op flicker-2-release-1 --by flicker",
    ),
    (
        "a retry of an acknowledged op: its original receipt, nothing written",
        "move 2 in-progress --op darkwing-2-start-1 --by darkwing",
    ),
];

/// Runs one step's request in the scratch checkout at `paths`, as the actor the step names
/// (`MOSAIC_AGENT_NAME` in the caller's environment plays no part); gives the receipt.
pub fn run_step(paths: &Paths, request: Request, reply: &mut dyn Reply) -> Replied {
    let no_actor = || Failure::usage("a demo step names no actor");
    let (command, change) = match request {
        Request::Next {
            seat: Some(seat), ..
        } => return next_explained_in(World::real(), paths, &seat, reply),
        Request::Take { change, .. } => {
            let by = change.by.ok_or_else(no_actor)?;
            return take_in(World::real(), paths, &change.op, &by, reply);
        }
        other => super::command::command(other)?,
    };
    check_op(&change.op)?;
    let by = change.by.as_deref().ok_or_else(no_actor)?;
    change_in(World::real(), paths, &command, &change.op, by, reply)
}

/// Runs one of `STEPS` in the scratch checkout at `paths` as the face parses it, giving its
/// answer (the receipt, the explanation) to the reply.
pub type StepRunner = dyn Fn(&Paths, &str, &mut dyn Reply) -> Replied;

/// `demo`: the scratch checkout, then the transcript, each step run by `run_step`. A reader
/// that stops reading (`demo | head -1`) does not stop the demo: it runs to its end without
/// printing more, keeps the checkout it named, and says so on stderr (exit 1, as any command
/// whose stdout is closed).
pub fn demo(run_step: &StepRunner, reply: &mut dyn Reply) -> Replied {
    let dir = new_dir()?;
    let mut kept = Unread::new(reply);
    let built =
        scratch(&dir).and_then(|(paths, map)| transcript(&dir, &paths, &map, run_step, &mut kept));
    if built.is_err() {
        // Nothing of a half-built demo is worth keeping.
        let _ = std::fs::remove_dir_all(&dir);
    }
    built?;
    match kept.lost {
        None => Ok(()),
        // The cause alone: a receipt's failure goes on to speak of retrying its op.
        Some(f) => Err(Failure::failed(format!(
            "{}; the demo ran to its end and its checkout is kept at {}: cd there to try it, or run the demo again without the pipe to read all it printed",
            f.message.split("; ").next().unwrap_or_default(),
            dir.display()
        ))),
    }
}

/// The demo's reply: the caller's until it fails to take a part (its reader went away), then
/// nothing more is given to it and the first failure is kept for the end.
struct Unread<'a> {
    reply: &'a mut dyn Reply,
    lost: Option<Failure>,
}

impl<'a> Unread<'a> {
    fn new(reply: &'a mut dyn Reply) -> Unread<'a> {
        Unread { reply, lost: None }
    }

    fn give(&mut self, part: impl FnOnce(&mut dyn Reply) -> Replied) -> Replied {
        if self.lost.is_none()
            && let Err(f) = part(&mut *self.reply)
        {
            self.lost = Some(f);
        }
        Ok(())
    }
}

impl Reply for Unread<'_> {
    fn documents(&self) -> bool {
        self.reply.documents()
    }

    fn text(&mut self, text: &str) -> Replied {
        self.give(|r| r.text(text))
    }

    fn document(&mut self, bytes: Vec<u8>) -> Replied {
        self.give(|r| r.document(bytes))
    }

    fn receipt(&mut self, entry: &mosaic_queue_core::Entry, recorded: bool) -> Replied {
        self.give(|r| r.receipt(entry, recorded))
    }

    fn taken(&mut self, row: &mosaic_queue_core::Row) {
        self.reply.taken(row);
    }

    fn warn(&mut self, line: &str) {
        self.reply.warn(line);
    }
}

/// A new, empty directory under the system temp dir, by its real path (the canonical root is
/// compared by real path).
fn new_dir() -> Result<PathBuf, Failure> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = std::env::temp_dir();
    let dir = tmp.join(format!(
        "mosaic-queue-demo-{}-{nanos:08x}",
        std::process::id()
    ));
    std::fs::create_dir(&dir)
        .map_err(|e| Failure::failed(format!("cannot create {}: {e}", dir.display())))?;
    dir.canonicalize()
        .map_err(|e| Failure::failed(format!("cannot resolve {}: {e}", dir.display())))
}

/// The checkout before genesis: QUEUE.md with its markers, the migration map and the queue's
/// scripts, committed. Returns its paths and the map's path.
fn scratch(dir: &Path) -> Result<(Paths, PathBuf), Failure> {
    git(dir, &["init", "-q", "-b", "main"])?;
    let paths = checkout::locate(dir)?;
    write_file(&paths.queue_md, QUEUE_MD)?;
    // Checked before anything is committed: the durability claims need one of these.
    session::check_filesystem(&paths).map_err(|e| {
        Failure::refused(format!(
            "cannot build the demo in {}: {e}; set TMPDIR to a directory on one of them",
            std::env::temp_dir().display()
        ))
    })?;
    let blob = git(dir, &["hash-object", "docs/plans/QUEUE.md"])?;
    let map = dir.join(MAP_PATH);
    write_file(
        &map,
        &format!("# Queue migration map\n\nsource: docs/plans/QUEUE.md blob {blob}\n\n{MAP_TABLE}"),
    )?;
    for (rel, text) in SCRIPTS {
        write_executable(&dir.join(rel), text)?;
    }
    git_commit(
        dir,
        &["docs/plans", MAP_PATH, "scripts"],
        "QUEUE.md with its markers, the migration map and the queue's scripts",
    )?;
    Ok((paths, map))
}

/// What the demo shows: genesis, its commit, the guard installed, every step, doctor, the
/// table, and the commands to try next. A step that fails shows its line and exit code.
fn transcript(
    dir: &Path,
    paths: &Paths,
    map: &Path,
    run_step: &StepRunner,
    reply: &mut dyn Reply,
) -> Replied {
    reply.line(&format!("demo checkout: {}", dir.display()))?;
    reply.line("")?;
    reply.line(&format!(
        "$ mosaic-queue genesis --map {MAP_PATH} --op jason-genesis-demo --by jason"
    ))?;
    genesis_in(paths, map, "jason-genesis-demo", "jason", reply)?;
    reply.line("$ git commit -m 'queue genesis' docs/plans")?;
    git_commit(dir, &["docs/plans"], "queue genesis")?;
    // Installed after the genesis commit, which the demo makes with plain git: the guard
    // would rightly refuse it. A refusal (a core.hooksPath in the user's global config)
    // shows in the transcript like any other.
    reply.line("$ mosaic-queue install-hook --by jason")?;
    match install_hook_in(dir, "jason") {
        Ok(receipt) => reply.line(&receipt)?,
        Err(f) => reply.line(&failed(&f))?,
    }
    for (what, step) in STEPS {
        reply.line(&format!("# {what}"))?;
        reply.line(&format!("$ mosaic-queue {step}"))?;
        if let Err(f) = run_step(paths, step, reply) {
            reply.line(&failed(&f))?;
        }
    }
    doctor(dir, reply)?;
    let md = read_queue_md(paths)?;
    reply.line("")?;
    reply.line("docs/plans/QUEUE.md:")?;
    reply.line("")?;
    reply.text(&md)?;
    reply.line("")?;
    try_next(dir, reply)
}

/// A step's failure as the transcript shows it: the line, and the exit code.
fn failed(f: &Failure) -> String {
    format!("mosaic-queue: {} (exit {})", f.message, f.exit.code())
}

/// doctor: the read-only check that names anything stuck and the command that cures it.
fn doctor(dir: &Path, reply: &mut dyn Reply) -> Replied {
    reply.line("# doctor: anything stuck, and the command that cures it")?;
    reply.line("$ mosaic-queue doctor")?;
    let report = crate::doctor::inspect_checkout(dir)
        .map_err(|e| Failure::failed(format!("doctor could not look: {e}")))?;
    for f in &report.findings {
        reply.line(&f.line())?;
    }
    if report.healthy {
        let rev = report.revision.unwrap_or_default();
        reply.line(&format!("ok doctor rev {rev}: nothing needs doing"))?;
    }
    Ok(())
}

/// The commands to try next, as they run: the binary by its absolute path (it need not be on
/// PATH), quoted for a POSIX shell, after a `cd` into the checkout.
fn try_next(dir: &Path, reply: &mut dyn Reply) -> Replied {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| String::from("mosaic-queue"));
    let exe = shell_quote(&exe);
    reply.line("Try next (each line as printed, in a POSIX shell):")?;
    reply.line(&format!("  cd {}", shell_quote(&dir.display().to_string())))?;
    reply.line(&format!("  {exe} list"))?;
    reply.line(&format!("  {exe} next darkwing --explain"))?;
    reply.line(&format!("  {exe} prime huey"))?;
    reply.line(&format!(
        "  {exe} move 2 in-review --candidate HEAD --issue 1510 --op darkwing-2-review-1 --by darkwing"
    ))?;
    reply.line(&format!("  {exe} verify --current"))?;
    reply.line(&format!("  {exe} log 2 --limit 3"))
}

/// `text` as one word for a POSIX shell: bare when it holds only characters no shell treats
/// specially, else in single quotes (a quote inside becomes `'\''`).
fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::failed(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, text)
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}", path.display())))
}

/// A script the checkout runs, mode 0755 whatever the umask, so git records it executable.
fn write_executable(path: &Path, text: &str) -> Result<(), Failure> {
    use std::os::unix::fs::PermissionsExt;
    write_file(path, text)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Failure::failed(format!("cannot make {} executable: {e}", path.display())))
}

fn git_commit(dir: &Path, paths: &[&str], message: &str) -> Result<(), Failure> {
    let mut add = vec!["add", "--"];
    add.extend_from_slice(paths);
    git(dir, &add)?;
    // Identity and signing on the command line only: the demo never touches any git config.
    git(
        dir,
        &[
            "-c",
            "user.name=mosaic-queue demo",
            "-c",
            "user.email=demo@mosaic-queue.invalid",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "-m",
            message,
        ],
    )?;
    Ok(())
}

/// Runs git in the scratch checkout, the one repository the CLI ever writes to.
fn git(dir: &Path, args: &[&str]) -> Result<String, Failure> {
    crate::git::run(dir, args)
        .map_err(|e| Failure::failed(format!("git {} failed: {e}", args.join(" "))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quote_leaves_plain_paths_bare() {
        assert_eq!(shell_quote("/tmp/x/mosaic-queue"), "/tmp/x/mosaic-queue");
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    /// A reader that takes `room` parts, then is gone.
    struct Closing {
        taken: Vec<String>,
        room: usize,
    }

    impl Reply for Closing {
        fn documents(&self) -> bool {
            false
        }
        fn text(&mut self, text: &str) -> Replied {
            if self.taken.len() == self.room {
                return Err(Failure::failed("cannot write to stdout: Broken pipe"));
            }
            self.taken.push(text.to_owned());
            Ok(())
        }
        fn document(&mut self, _: Vec<u8>) -> Replied {
            self.text("document")
        }
        fn receipt(&mut self, entry: &mosaic_queue_core::Entry, _: bool) -> Replied {
            self.text(&entry.receipt)
        }
        fn taken(&mut self, _: &mosaic_queue_core::Row) {}
        fn warn(&mut self, _: &str) {}
    }

    #[test]
    fn a_reader_gone_takes_nothing_more_and_its_first_failure_is_kept() {
        let mut closing = Closing {
            taken: Vec::new(),
            room: 2,
        };
        let mut unread = Unread::new(&mut closing);
        for part in ["a\n", "b\n", "c\n", "d\n"] {
            assert!(unread.text(part).is_ok(), "{part}");
        }
        let lost = unread.lost.take().map(|f| f.message);
        assert_eq!(lost.as_deref(), Some("cannot write to stdout: Broken pipe"));
        assert_eq!(closing.taken, ["a\n", "b\n"]);
    }
}
