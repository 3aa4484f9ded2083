//! A file, a header and a compile database (NUL-separated): the build model, then the
//! whole pipeline.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| reductio_fuzz::build_project(data));
