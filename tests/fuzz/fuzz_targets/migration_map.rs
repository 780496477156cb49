//! libFuzzer entry for the `migration_map` check (tests/fuzz/src/migration_map.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::migration_map::check(bytes));
