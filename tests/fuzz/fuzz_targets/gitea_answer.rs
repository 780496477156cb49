//! libFuzzer entry for the `gitea_answer` check (tests/fuzz/src/gitea_answer.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| mosaic_queue_fuzz::gitea_answer::check(bytes));
