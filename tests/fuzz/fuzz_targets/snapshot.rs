//! libFuzzer entry for the `snapshot` check (tests/fuzz/src/snapshot.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::snapshot::check(bytes));
