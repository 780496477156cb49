//! The one retry the tests allow: a change whose lock wait ran out (exit 1, the held lock's one
//! line) runs again with the same op, as the contract tells a caller to, a bounded number of
//! times. Any other outcome is returned for the test to judge, never retried.

use crate::Out;

/// Runs in all, the first included.
pub const TRIES: usize = 4;

/// Exit 1 with nothing on stdout and the one line of a lock held past the wait.
pub fn lock_wait_ran_out(out: &Out) -> bool {
    out.code == 1
        && out.stdout.is_empty()
        && out.stderr.lines().count() == 1
        && out.stderr.starts_with("mosaic-queue: the queue lock ")
        && out.stderr.contains(" and was not released within ")
}

/// Runs `run` until it ends other than by its lock wait running out; returns that run and the
/// runs retried before it. Panics when all `TRIES` ran out of lock wait.
#[track_caller]
pub fn past_lock_waits(mut run: impl FnMut() -> Out) -> (Out, Vec<Out>) {
    let mut retried = Vec::new();
    for _ in 0..TRIES {
        let out = run();
        if !lock_wait_ran_out(&out) {
            return (out, retried);
        }
        retried.push(out);
    }
    panic!("the lock wait ran out {TRIES} times in a row: {retried:?}");
}
