//! Arbitrary bytes as a C file: parse, lower, every probe, every report format.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| reductio_fuzz::c_file(data));
