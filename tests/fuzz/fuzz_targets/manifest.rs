//! libFuzzer entry for the `manifest` check (tests/fuzz/src/manifest.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::manifest::check(bytes));
