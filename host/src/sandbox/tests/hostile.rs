//! Modules that misbehave, written in the text format: the runner must turn each into its
//! error (trap, exhausted fuel, unreadable result, missing export), never a panic or a verdict.

use crate::exit::Exit;
use crate::sandbox::{Caps, Sandbox, SandboxError};

/// The sandbox surface with `body` as `verify_snapshot`'s code; `alloc` hands out addresses
/// from 1024 up and `free` does nothing.
fn module(body: &str) -> Sandbox {
    let text = format!(
        r#"(module
            (memory (export "memory") 2)
            (global $next (mut i32) (i32.const 1024))
            (func (export "alloc") (param $len i32) (result i32)
                (local $at i32)
                (local.set $at (global.get $next))
                (global.set $next (i32.add (global.get $next) (local.get $len)))
                (local.get $at))
            (func (export "free") (param i32 i32))
            (func (export "verify_snapshot")
                (param i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)
                {body}))"#
    );
    let wasm = wat::parse_str(&text).expect("the test module parses");
    Sandbox::compile(&wasm).unwrap_or_else(|e| panic!("the test module loads: {e}"))
}

fn run(sandbox: &Sandbox) -> SandboxError {
    sandbox
        .verify(Caps::shipped(), b"{}", b"table", None)
        .expect_err("the module gives no verdict")
}

#[test]
fn a_trap_refuses_the_snapshot() {
    let err = run(&module("unreachable"));
    assert_eq!(
        err.to_string(),
        "verify --snapshot: the sandbox stopped (wasm trap: wasm `unreachable` instruction \
         executed), so the snapshot is not certified"
    );
    assert_eq!(err.exit(), Exit::Refused);
}

#[test]
fn a_loop_that_never_ends_runs_out_of_fuel() {
    let sandbox = module("(loop $forever (br $forever)) unreachable");
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
    let sandbox = module("(drop (memory.grow (i32.const 100))) unreachable");
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
        ("(i32.const -8)", "its address is outside memory"),
        // A length of 0xffff at address 0 runs past the 128 KiB memory.
        (
            "(i32.store (i32.const 0) (i32.const 0xffffff)) (i32.const 0)",
            "its length runs outside memory",
        ),
        // Four zero bytes: an empty payload, which has no tag.
        ("(i32.const 16)", "it ends early"),
        // Length 1, tag 9.
        (
            "(i32.store (i32.const 16) (i32.const 1)) (i32.store8 (i32.const 20) (i32.const 9)) \
             (i32.const 16)",
            "unknown result tag",
        ),
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
    let wasm = wat::parse_str(r#"(module (memory (export "memory") 1))"#).expect("parses");
    let sandbox = Sandbox::compile(&wasm).expect("loads: it imports nothing");
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
    let wasm = wat::parse_str(r#"(module (import "env" "f" (func)))"#).expect("parses");
    let err = Sandbox::compile(&wasm).err().expect("refused");
    assert_eq!(
        err.to_string(),
        "verify --snapshot: the sandbox failed: the module imports env::f, and a sandbox module \
         must import nothing"
    );
    assert_eq!(err.exit(), Exit::Failed);
}
