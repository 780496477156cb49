//! Test seams compiled only with the `fault-injection` feature: at each named write step the
//! binary SIGKILLs itself when `MOSAIC_KILL_AT` names that step. Shipped builds compile every
//! call to nothing.

/// Marks a named step of a write.
#[inline(always)]
pub fn step(name: &str) {
    #[cfg(feature = "fault-injection")]
    if std::env::var("MOSAIC_KILL_AT").is_ok_and(|at| at == name) {
        let me = rustix::process::getpid();
        let _ = rustix::process::kill_process(me, rustix::process::Signal::KILL);
    }
    #[cfg(not(feature = "fault-injection"))]
    let _ = name;
}

/// The steps a write passes, in order; the kill-point tests walk this list.
pub const WRITE_STEPS: &[&str] = &[
    "lock-taken",
    "queue-temp-written",
    "queue-renamed",
    "queue-dir-synced",
    "witness-temp-written",
    "witness-renamed",
    "witness-dir-synced",
    "table-renamed",
    "receipt-printed",
];
