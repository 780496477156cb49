//! The sandbox's own tests: the embedded module's shape (no imports), the refusals for a
//! missing module and for each cap; differential.rs runs every fixture through the native core
//! and the sandbox, hostile.rs runs modules that misbehave.

mod differential;
mod hostile;

use support::workload;

use crate::exit::Exit;

use std::path::PathBuf;
use std::sync::OnceLock;

use super::{Caps, SUMMARY, Sandbox, native};

/// The embedded module, loaded once for every test in this binary.
pub(super) fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::embedded().expect("the embedded module loads"))
}

pub(super) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

pub(super) fn read(rel: &str) -> Vec<u8> {
    let path = fixtures().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A QUEUE.md around `body`, as the CLI writes it.
pub(super) fn md(body: &[u8]) -> Vec<u8> {
    let mut out = b"# Queue\n\n<!-- mosaic-queue:begin -->\n".to_vec();
    out.extend_from_slice(body);
    out.extend_from_slice(b"<!-- mosaic-queue:end -->\n");
    out
}

/// The benchmarks' workload queue grown to `entries` log entries, as bytes.
pub(super) fn generated(entries: u64) -> Vec<u8> {
    let mut sim = workload::Sim::new(
        workload::Shape {
            genesis_rows: 40,
            max_rows: 40,
            add_every: u64::MAX,
        },
        workload::Origin {
            root: String::from("/srv/mosaic"),
            source: String::from("0123456789abcdef0123456789abcdef01234567"),
            legacy_view: String::from("| # | Piece |\n| --- | --- |\n"),
        },
    );
    while sim.queue.revision() < entries {
        sim.step();
    }
    sim.queue.to_bytes()
}

fn basic() -> (Vec<u8>, Vec<u8>) {
    (
        read("golden/basic/queue.json"),
        md(&read("golden/basic/body.md")),
    )
}

#[test]
fn the_embedded_module_imports_nothing_and_exports_the_surface() {
    let module = sandbox().module();
    let imports: Vec<String> = module
        .imports()
        .map(|i| format!("{}::{}", i.module(), i.name()))
        .collect();
    assert_eq!(imports, Vec::<String>::new());
    let mut exports: Vec<&str> = module
        .exports()
        .map(|e| e.name())
        .filter(|n| !n.starts_with("__"))
        .collect();
    exports.sort_unstable();
    // `memcmp` is the module's own faster one (wasm/src/sandbox.rs): a cdylib exports every
    // unmangled function, and the host never calls it.
    assert_eq!(
        exports,
        ["alloc", "free", "memcmp", "memory", "verify_snapshot"]
    );
}

#[test]
fn the_version_line_names_the_embedded_module() {
    // The build script words this only after it compiled the module it embeds.
    assert!(
        SUMMARY.starts_with("sandbox: wasm32 module of ")
            && SUMMARY.ends_with(" KiB of native code; no compiler in this binary"),
        "{SUMMARY}"
    );
}

#[test]
fn running_out_of_fuel_is_a_refusal_naming_the_cap() {
    let (json, table) = basic();
    let caps = Caps {
        fuel: 50_000,
        ..Caps::shipped()
    };
    let err = sandbox().verify(caps, &json, &table, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "verify --snapshot: the sandbox ran out of fuel (cap 50000) before a verdict, so the \
         snapshot is not certified: the cap is many times what a 100k-entry queue needs, so \
         check that these are the files you meant"
    );
    assert_eq!(err.exit(), Exit::Refused);
    // The same bytes pass with the shipped caps, so the cap alone made the difference.
    assert_eq!(
        sandbox()
            .verify(Caps::shipped(), &json, &table, None)
            .unwrap(),
        native(&json, &table, None)
    );
}

/// The memory message for a cap of `mib` MiB.
fn out_of_memory(mib: usize) -> String {
    format!(
        "verify --snapshot: the sandbox ran out of memory (cap {mib} MiB) before a verdict, so \
         the snapshot is not certified: the cap is many times what a 100k-entry queue needs, so \
         check that these are the files you meant"
    )
}

#[test]
fn input_larger_than_the_memory_cap_is_a_refusal_naming_the_cap() {
    let (json, table) = basic();
    let caps = Caps {
        memory: 4 << 20,
        ..Caps::shipped()
    };
    let mut huge = json.clone();
    huge.resize(8 << 20, b' ');
    let err = sandbox().verify(caps, &huge, &table, None).unwrap_err();
    assert_eq!(err.to_string(), out_of_memory(4));
    assert_eq!(err.exit(), Exit::Refused);
}

#[test]
fn the_core_running_out_of_memory_mid_check_is_a_refusal_naming_the_cap() {
    // A queue whose bytes fit under the cap but whose parse does not: the allocator's failure
    // inside the core must read as the memory cap, not as a generic trap.
    let json = generated(5_000);
    let table = md(mosaic_queue_core::Queue::verify(&json)
        .expect("the generated queue verifies")
        .render_body()
        .as_bytes());
    let (answer, usage) = sandbox().verify_metered(Caps::shipped(), &json, &table, None);
    assert_eq!(answer.unwrap(), native(&json, &table, None));
    let mib = (usage.memory - 1) >> 20;
    // Room for the module's own 1 MiB and both inputs, so the core runs before it fails.
    assert!(
        (mib << 20) > (2 << 20) + json.len() + table.len(),
        "peak {} bytes for {} bytes of input",
        usage.memory,
        json.len() + table.len()
    );
    let caps = Caps {
        memory: mib << 20,
        ..Caps::shipped()
    };
    let err = sandbox().verify(caps, &json, &table, None).unwrap_err();
    assert_eq!(err.to_string(), out_of_memory(mib));
    assert_eq!(err.exit(), Exit::Refused);
}
