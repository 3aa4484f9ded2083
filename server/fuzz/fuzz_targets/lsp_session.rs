//! Arbitrary bytes as a session of LSP messages against the in-process server.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| reductio_fuzz::lsp_session(data));
