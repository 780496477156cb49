//! libFuzzer entry for the `table` check (tests/fuzz/src/table.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::table::check(bytes));
