#![no_main]
// tests/fuzz/checks.rs says what is checked.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    uverbs_fuzz_coverage::checks::netlink(data);
});
