//! libFuzzer entry for the `replay` check (tests/fuzz/src/replay.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::replay::check(bytes));
