//! Loading the module once (the native code host/build.rs compiled ahead of time) and running
//! it once per verification in a fresh store: no imports are offered, the limiter enforces the
//! memory cap and remembers refusing it, and fuel bounds the instructions. Every way the run
//! can end maps to an `Answer` or an error.

use std::borrow::Cow;

use wasmtime::{Engine, Instance, Memory, Module, ResourceLimiter, Store, Trap, TypedFunc};

use super::{Answer, Caps, SandboxError, engine};
use mosaic_queue_core::{sandbox, sandbox::Malformed};

/// The module's tables never grow; this only bounds a module that tried.
const TABLE_ELEMENTS: usize = 1 << 16;

/// The byte strings a check runs on. An owned one is dropped as soon as the module holds its
/// copy, so a check of a long log does not hold it twice: `verify --snapshot` reads its files
/// into buffers it gives away; `commit` lends bytes it still needs. `archives` is the
/// snapshot's archives as `sandbox::pack_archives` packs them (empty for none).
pub struct Inputs<'a> {
    pub json: Cow<'a, [u8]>,
    pub md: Cow<'a, [u8]>,
    pub base: Option<Cow<'a, [u8]>>,
    pub archives: Cow<'a, [u8]>,
}

impl<'a> Inputs<'a> {
    pub fn borrowed(json: &'a [u8], md: &'a [u8], base: Option<&'a [u8]>) -> Inputs<'a> {
        Inputs {
            json: Cow::Borrowed(json),
            md: Cow::Borrowed(md),
            base: base.map(Cow::Borrowed),
            archives: Cow::Borrowed(&[]),
        }
    }
}

/// A loaded sandbox module, ready to verify snapshots.
pub struct Sandbox {
    engine: Engine,
    module: Module,
}

impl Sandbox {
    /// Loads the module host/build.rs compiled into this binary.
    pub fn embedded() -> Result<Sandbox, SandboxError> {
        let engine = engine()?;
        let native = unpacked(super::PRECOMPILED, super::PRECOMPILED_MAX)?;
        // SAFETY: `deserialize` trusts its bytes to be wasmtime's own compiler output, since it
        // maps them as executable code. These are: `PRECOMPILED` is the artifact host/build.rs
        // made with `Engine::precompile_module` and LZ4-packed, embedded by `include_bytes!` in
        // this very binary, never read from a file or the network, and compiled with
        // `engine::config()`, the configuration `engine()` uses here; unpacking gives back
        // exactly those bytes (LZ4 is lossless, and a corrupt block fails above). wasmtime
        // still checks its version, the target and every setting against this engine, and
        // refuses a mismatch.
        let module =
            unsafe { Module::deserialize(&engine, &native) }.map_err(|e| broken("load", &e))?;
        Sandbox::checked(engine, module)
    }

    /// Loads one of the tests' hand-written modules, which host/build.rs compiled ahead of
    /// time into `OUT_DIR/test-modules/` (sandbox/tests/modules.rs).
    #[cfg(test)]
    pub fn test_module(name: &str) -> Result<Sandbox, SandboxError> {
        let engine = engine()?;
        let file = format!("{}/test-modules/{name}.cwasm", env!("OUT_DIR"));
        let native =
            std::fs::read(&file).map_err(|e| SandboxError::Broken(format!("read {file}: {e}")))?;
        // SAFETY: as for `embedded`: the bytes are what this build's own build script made
        // with `Engine::precompile_module` and `engine::config()`, from the text in
        // sandbox/tests/modules.rs, read back unchanged from OUT_DIR; wasmtime still checks
        // its version, the target and every setting, and refuses a mismatch.
        let module =
            unsafe { Module::deserialize(&engine, &native) }.map_err(|e| broken("load", &e))?;
        Sandbox::checked(engine, module)
    }

    /// Refuses a module that imports anything, so nothing from the host can ever be reached
    /// from inside.
    fn checked(engine: Engine, module: Module) -> Result<Sandbox, SandboxError> {
        if let Some(import) = module.imports().next() {
            return Err(SandboxError::Broken(format!(
                "the module imports {}::{}, and a sandbox module must import nothing",
                import.module(),
                import.name()
            )));
        }
        Ok(Sandbox { engine, module })
    }

    /// The compiled module, for tests that inspect its shape.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Runs the core's `verify_snapshot` on the three byte strings within `caps`.
    pub fn verify(
        &self,
        caps: Caps,
        json: &[u8],
        md: &[u8],
        base: Option<&[u8]>,
    ) -> Result<Answer, SandboxError> {
        self.verify_metered(caps, json, md, base).0
    }

    /// `verify`, and what the run used: the benchmark sizes the caps from this.
    pub fn verify_metered(
        &self,
        caps: Caps,
        json: &[u8],
        md: &[u8],
        base: Option<&[u8]>,
    ) -> (Result<Answer, SandboxError>, Usage) {
        self.run_metered(caps, Inputs::borrowed(json, md, base))
    }

    /// `verify` on inputs that may be owned (dropped once copied in).
    pub fn verify_inputs(&self, caps: Caps, inputs: Inputs<'_>) -> Result<Answer, SandboxError> {
        self.run_metered(caps, inputs).0
    }

    fn run_metered(&self, caps: Caps, inputs: Inputs<'_>) -> (Result<Answer, SandboxError>, Usage) {
        let mut store = Store::new(&self.engine, Guard::new(caps.memory));
        store.limiter(|guard| guard);
        if let Err(e) = store.set_fuel(caps.fuel) {
            return (Err(broken("fuel", &e)), Usage::default());
        }
        let result = match run(&mut store, &self.module, inputs) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(malformed)) => Err(SandboxError::Broken(malformed.to_string())),
            Err(e) => Err(classify(store.data(), caps, &e)),
        };
        let usage = Usage {
            fuel: caps.fuel - store.get_fuel().unwrap_or(0),
            memory: store.data().peak,
        };
        (result, usage)
    }
}

/// What one verification used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Fuel consumed.
    pub fuel: u64,
    /// The linear memory's final (and so largest) size, in bytes.
    pub memory: usize,
}

/// Store data: the memory cap, whether the limiter has refused a growth, the largest size.
struct Guard {
    memory_cap: usize,
    refused: bool,
    peak: usize,
}

impl Guard {
    fn new(memory_cap: usize) -> Guard {
        Guard {
            memory_cap,
            refused: false,
            peak: 0,
        }
    }
}

impl ResourceLimiter for Guard {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = desired <= self.memory_cap;
        self.refused |= !allowed;
        if allowed {
            self.peak = self.peak.max(desired);
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_ELEMENTS)
    }
}

/// `verify_snapshot`'s parameters: json, md and base as address and length, then has-base,
/// then the packed archives as address and length.
type VerifyParams = (u32, u32, u32, u32, u32, u32, u32, u32, u32);

/// The module's exports, typed.
struct Exports {
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    verify: TypedFunc<VerifyParams, u32>,
}

fn run(
    store: &mut Store<Guard>,
    module: &Module,
    inputs: Inputs<'_>,
) -> wasmtime::Result<Result<Answer, Malformed>> {
    let instance = Instance::new(&mut *store, module, &[])?;
    let ex = Exports {
        memory: instance
            .get_memory(&mut *store, "memory")
            .ok_or_else(|| wasmtime::format_err!("the module exports no memory"))?,
        alloc: instance.get_typed_func(&mut *store, "alloc")?,
        free: instance.get_typed_func(&mut *store, "free")?,
        verify: instance.get_typed_func(&mut *store, "verify_snapshot")?,
    };
    // Each input goes as soon as the module holds its copy (owned ones are freed here).
    let Inputs {
        json,
        md,
        base,
        archives,
    } = inputs;
    let json_at = put(store, &ex, &json)?;
    drop(json);
    let md_at = put(store, &ex, &md)?;
    drop(md);
    let has_base = base.is_some();
    let base_at = match base {
        Some(bytes) => put(store, &ex, &bytes)?,
        None => (0, 0),
    };
    let archives_at = match archives.is_empty() {
        true => (0, 0),
        false => put(store, &ex, &archives)?,
    };
    drop(archives);
    let result = ex.verify.call(
        &mut *store,
        (
            json_at.0,
            json_at.1,
            md_at.0,
            md_at.1,
            base_at.0,
            base_at.1,
            u32::from(has_base),
            archives_at.0,
            archives_at.1,
        ),
    )?;
    let (answer, total) = read_result(store, &ex.memory, result);
    for (ptr, len) in [json_at, md_at, base_at, archives_at, (result, total)] {
        if ptr != 0 {
            ex.free.call(&mut *store, (ptr, len))?;
        }
    }
    Ok(answer)
}

/// Copies `bytes` into a buffer the module allocates; its address and length.
fn put(store: &mut Store<Guard>, ex: &Exports, bytes: &[u8]) -> wasmtime::Result<(u32, u32)> {
    // A buffer the module's address space cannot hold is over the memory cap by definition.
    let Ok(len) = u32::try_from(bytes.len()) else {
        store.data_mut().refused = true;
        wasmtime::bail!("{} bytes do not fit in wasm32", bytes.len());
    };
    let ptr = ex.alloc.call(&mut *store, len)?;
    if ptr == 0 {
        store.data_mut().refused = true;
        wasmtime::bail!("the module could not allocate {len} bytes");
    }
    ex.memory.write(&mut *store, ptr as usize, bytes)?;
    Ok((ptr, len))
}

/// The answer at `at` and the buffer's total length (0 when it cannot be freed safely).
fn read_result(store: &Store<Guard>, memory: &Memory, at: u32) -> (Result<Answer, Malformed>, u32) {
    let data = memory.data(store);
    let start = at as usize;
    let Some(len) = data
        .get(start..start.saturating_add(4))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
    else {
        return (Err(Malformed::new("its address is outside memory")), 0);
    };
    match data.get(start + 4..(start + 4).saturating_add(len as usize)) {
        Some(payload) => (sandbox::decode(payload), len.saturating_add(4)),
        None => (Err(Malformed::new("its length runs outside memory")), 0),
    }
}

fn classify(guard: &Guard, caps: Caps, e: &wasmtime::Error) -> SandboxError {
    // Checked first: a refused growth surfaces as the allocator's abort, an `unreachable` trap.
    if guard.refused {
        return SandboxError::OutOfMemory { cap: caps.memory };
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => SandboxError::OutOfFuel { cap: caps.fuel },
        Some(trap) => SandboxError::Trapped(trap.to_string()),
        None => broken("run", e),
    }
}

fn engine() -> Result<Engine, SandboxError> {
    Engine::new(&engine::config()).map_err(|e| broken("engine", &e))
}

/// The embedded module's bytes: its length (u32, little-endian, at most `max`), then its LZ4
/// block, unpacked to exactly that length.
fn unpacked(packed: &[u8], max: usize) -> Result<Vec<u8>, SandboxError> {
    let fail = |why: String| SandboxError::Broken(format!("unpack: {why}"));
    let (len, block) = packed
        .split_first_chunk::<4>()
        .ok_or_else(|| fail("no length".to_owned()))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > max {
        return Err(fail(format!("{len} bytes is over {max}")));
    }
    let native = lz4_flex::block::decompress(block, len).map_err(|e| fail(e.to_string()))?;
    if native.len() != len {
        return Err(fail(format!("{} bytes, not {len}", native.len())));
    }
    Ok(native)
}

fn broken(stage: &str, e: &wasmtime::Error) -> SandboxError {
    SandboxError::Broken(format!("{stage}: {e}"))
}

#[cfg(test)]
mod unpack_tests {
    use super::unpacked;

    /// An LZ4 block of five literals: the token says 5 literals and no match.
    const HELLO: &[u8] = &[5, 0, 0, 0, 0x50, b'h', b'e', b'l', b'l', b'o'];

    #[test]
    fn a_packed_module_unpacks_to_its_length() {
        assert_eq!(unpacked(HELLO, 5).unwrap(), b"hello");
    }

    #[test]
    fn a_broken_pack_is_refused_in_one_line() {
        let why = |packed: &[u8], max| unpacked(packed, max).unwrap_err().to_string();
        assert!(
            why(&[1, 0], 64).ends_with("unpack: no length"),
            "{}",
            why(&[1, 0], 64)
        );
        assert!(
            why(HELLO, 4).ends_with("unpack: 5 bytes is over 4"),
            "{}",
            why(HELLO, 4)
        );
        let short = [6, 0, 0, 0, 0x50, b'h', b'e', b'l', b'l', b'o'];
        assert!(why(&short, 64).contains("unpack: "), "{}", why(&short, 64));
        assert!(!why(&short, 64).contains('\n'));
        let cut = &HELLO[..8];
        assert!(why(cut, 64).contains("unpack: "), "{}", why(cut, 64));
    }
}
