//! The sandbox tests' hand-written misbehaving modules, in the text format. host/build.rs
//! compiles each ahead of time in builds with the test seams, as it compiles the real module,
//! so no test build needs a compiler at run time and the tests' wasmtime is the shipped one.

/// A module with the sandbox's surface whose `verify_snapshot` runs `body`; `alloc` hands out
/// addresses from 1024 up and `free` does nothing.
fn surface(body: &str) -> String {
    format!(
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
    )
}

/// Every module the tests load, by the name they load it with.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("trap", surface("unreachable")),
        (
            "forever",
            surface("(loop $forever (br $forever)) unreachable"),
        ),
        // memory.grow answers -1 and the module then traps on its own, as Rust's allocator does.
        (
            "grows",
            surface("(drop (memory.grow (i32.const 100))) unreachable"),
        ),
        ("outside", surface("(i32.const -8)")),
        // A length of 0xffff at address 0 runs past the 128 KiB memory.
        (
            "too-long",
            surface("(i32.store (i32.const 0) (i32.const 0xffffff)) (i32.const 0)"),
        ),
        // Four zero bytes: an empty payload, which has no tag.
        ("empty", surface("(i32.const 16)")),
        // Length 1, tag 9.
        (
            "tag-9",
            surface(
                "(i32.store (i32.const 16) (i32.const 1)) (i32.store8 (i32.const 20) (i32.const 9)) \
                 (i32.const 16)",
            ),
        ),
        (
            "no-surface",
            String::from(r#"(module (memory (export "memory") 1))"#),
        ),
        (
            "imports",
            String::from(r#"(module (import "env" "f" (func)))"#),
        ),
    ]
}
