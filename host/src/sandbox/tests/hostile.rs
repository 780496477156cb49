//! Modules that misbehave (sandbox/tests/modules.rs, compiled by host/build.rs): the runner
//! must turn each into its error (trap, exhausted fuel, unreadable result, missing export, an
//! import), never a panic or a verdict.

use crate::exit::Exit;
use crate::sandbox::{Caps, Sandbox, SandboxError};

/// The test module `name` (sandbox/tests/modules.rs), as host/build.rs compiled it.
fn module(name: &str) -> Sandbox {
    Sandbox::test_module(name).unwrap_or_else(|e| panic!("the test module {name} loads: {e}"))
}

fn run(sandbox: &Sandbox) -> SandboxError {
    sandbox
        .verify(Caps::shipped(), b"{}", b"table", None)
        .expect_err("the module gives no verdict")
}

#[test]
fn a_trap_refuses_the_snapshot() {
    let err = run(&module("trap"));
    assert_eq!(
        err.to_string(),
        "verify --snapshot: the sandbox stopped (wasm trap: wasm `unreachable` instruction \
         executed), so the snapshot is not certified"
    );
    assert_eq!(err.exit(), Exit::Refused);
}

#[test]
fn a_loop_that_never_ends_runs_out_of_fuel() {
    let sandbox = module("forever");
    let caps = Caps {
        fuel: 1_000_000,
        ..Caps::shipped()
    };
    let err = sandbox
        .verify(caps, b"{}", b"table", None)
        .expect_err("no verdict");
    assert!(
        matches!(err, SandboxError::OutOfFuel { cap: 1_000_000 }),
        "{err}"
    );
    assert_eq!(err.exit(), Exit::Refused);
}

#[test]
fn growing_memory_past_the_cap_is_the_memory_cap_even_when_handled() {
    // memory.grow answers -1 and the module then traps on its own, as Rust's allocator does.
    let sandbox = module("grows");
    let caps = Caps {
        memory: 4 << 20,
        ..Caps::shipped()
    };
    let err = sandbox
        .verify(caps, b"{}", b"table", None)
        .expect_err("no verdict");
    assert!(
        matches!(err, SandboxError::OutOfMemory { cap } if cap == 4 << 20),
        "{err}"
    );
}

#[test]
fn an_unreadable_result_fails_the_command() {
    let cases = [
        ("outside", "its address is outside memory"),
        ("too-long", "its length runs outside memory"),
        ("empty", "it ends early"),
        ("tag-9", "unknown result tag"),
    ];
    for (body, why) in cases {
        let err = run(&module(body));
        assert_eq!(
            err.to_string(),
            format!(
                "verify --snapshot: the sandbox failed: the sandbox's result is malformed: {why}"
            ),
            "{body}"
        );
        assert_eq!(err.exit(), Exit::Failed);
    }
}

#[test]
fn a_module_without_the_surface_fails_the_command() {
    let sandbox = module("no-surface");
    let err = run(&sandbox);
    assert!(
        err.to_string()
            .starts_with("verify --snapshot: the sandbox failed: run: "),
        "{err}"
    );
    assert_eq!(err.exit(), Exit::Failed);
}

#[test]
fn a_module_that_imports_anything_is_refused() {
    let err = Sandbox::test_module("imports").err().expect("refused");
    assert_eq!(
        err.to_string(),
        "verify --snapshot: the sandbox failed: the module imports env::f, and a sandbox module \
         must import nothing"
    );
    assert_eq!(err.exit(), Exit::Failed);
}
