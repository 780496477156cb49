//! Running `git` with the environment cleared of the variables that would point it at another
//! repository or index. The queue only reads through it, except `demo`, which builds its own
//! scratch checkout.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `git ARGS` in `dir`; `Ok(stdout)` on exit 0, `Err(stderr)` otherwise.
pub fn run(dir: &Path, args: &[&str]) -> Result<String, String> {
    output(&mut reading(dir, args))
}

/// `git ARGS` in `dir` against the repository's own index: for callers that stream git's
/// output themselves.
pub fn reading(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = command(dir, args);
    cmd.env_remove("GIT_INDEX_FILE");
    cmd
}

/// Runs `git ARGS` in `dir` like `run`, but against the index file `index`: a hook runs with
/// GIT_INDEX_FILE naming the index being committed (a temporary one for a partial commit or
/// `commit`'s canary), and the guard must judge that index, not the default one.
pub fn run_with_index(dir: &Path, index: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = command(dir, args);
    cmd.env("GIT_INDEX_FILE", index);
    output(&mut cmd)
}

/// Runs `git ARGS` in `dir` with `input` on its stdin; stdout as bytes on exit 0, else its
/// stderr on one line. For output that is binary or NUL-delimited (`cat-file --batch`, `-z`).
pub fn bytes_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = reading(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // A writer thread: git may fill its stdout pipe before it has read all its input.
    let out = std::thread::scope(|s| {
        s.spawn(move || stdin.write_all(input));
        child.wait_with_output()
    })
    .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(one_line(&out.stderr))
    }
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR");
    cmd
}

/// What an error from `run` starts with when git itself could not be started (not on PATH,
/// not executable), as opposed to git answering with a failure.
const CANNOT_RUN: &str = "cannot run git: ";

/// Whether an error from `run` means git could not be started at all.
pub fn could_not_run(err: &str) -> bool {
    err.starts_with(CANNOT_RUN)
}

fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{CANNOT_RUN}{e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout)
            .trim_end_matches('\n')
            .to_owned())
    } else {
        Err(one_line(&out.stderr))
    }
}

/// Errors end up in one-line messages.
fn one_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr).trim().replace('\n', "; ")
}

/// Whether `HEAD:<path>` exists in the object database.
pub fn head_has(dir: &Path, path: &str) -> bool {
    run(dir, &["cat-file", "-e", &format!("HEAD:{path}")]).is_ok()
}
