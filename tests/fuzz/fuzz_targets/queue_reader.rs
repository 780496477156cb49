//! libFuzzer entry for the `queue_reader` check (tests/fuzz/src/queue_reader.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::queue_reader::check(bytes));
