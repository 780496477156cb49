//! libFuzzer entry for the `epoch` check (tests/fuzz/src/epoch.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::epoch::check(bytes));
