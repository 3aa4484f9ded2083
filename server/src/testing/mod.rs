//! Test support shared by the integration tests, the examples and the fuzz targets (which are
//! separate crates, so it lives in the library). Not part of the API: hidden from the docs,
//! and free to change with the tests.
//!
//! - [`framing`]: LSP base-protocol framing (`Content-Length` headers), blocking and async.
//! - [`lsp_client`]: an LSP client driving an in-process server over in-memory pipes.
//!
//! The client that drives `reductio serve` as a child process (for the latency benchmarks)
//! is `examples/common/stdio_client.rs`, on top of [`framing`]: the library starts no process
//! (`tests/security.rs` checks its source for process and network APIs).

pub mod framing;
pub mod lsp_client;
