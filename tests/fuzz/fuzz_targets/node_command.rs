//! libFuzzer entry for the `node_command` check (tests/fuzz/src/node_command.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::node_command::check(bytes));
