//! Fuzz targets for reductio (see `targets.rs`; run with `cargo +nightly fuzz run <target>`).
mod targets;
pub use targets::*;
