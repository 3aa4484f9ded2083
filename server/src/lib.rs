//! reductio: memory-leak analysis by contradiction for C.
//!
//! Layers (each depends only on those above it): [`syntax`] → [`ir`] → [`db`]. See
//! ARCHITECTURE.md for the code map and the invariants each layer keeps.
pub mod baseline;
pub mod batch;
pub mod build;
pub mod ci;
pub mod config;
pub mod db;
pub mod files;
pub mod fingerprint;
pub mod fix;
pub mod ir;
pub mod lsp;
pub mod merge;
pub mod probe;
pub mod regions;
pub mod report;
pub mod suppress;
pub mod syntax;
#[doc(hidden)]
pub mod testing;
