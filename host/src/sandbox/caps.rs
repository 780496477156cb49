//! The sandbox's two caps and the figures they ship with. The fault-injection build lets
//! `MOSAIC_SANDBOX_FUEL` and `MOSAIC_SANDBOX_MEMORY_MIB` lower them, so an end-to-end test can
//! make the real binary run out of either; a shipped build reads no environment here.

/// How much the module may use for one verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Wasmtime fuel: about one unit per wasm instruction executed.
    pub fuel: u64,
    /// The most linear memory the module may grow to, in bytes.
    pub memory: usize,
}

/// Fuel: a 100k-entry queue (45 MiB) checked against a 50k-entry base burns 3.5e9 units (2.3e9
/// with no base, bench-faces); ten times that bounds a hostile input to seconds of CPU.
const FUEL: u64 = 40_000_000_000;

/// Memory: that check peaks at 138 MiB of linear memory (94 MiB with no base); 1 GiB leaves room
/// for a base as large as the snapshot and several times the queue.
const MEMORY: usize = 1 << 30;

impl Caps {
    /// The caps `verify --snapshot` and `commit` run with.
    pub fn shipped() -> Caps {
        let (fuel, memory) = crate::io::seams::sandbox_caps(FUEL, MEMORY);
        Caps { fuel, memory }
    }
}
