//! Compiling and running C under the sanitizers, shared by the tests that check reductio
//! against real executions (`soundness.rs`, `paper_inputs.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// A numeric setting from the environment, or `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fresh directory under `target/<kind>/` to compile into.
pub fn work_dir(kind: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target")
        .join(kind)
        .join(format!(
            "run-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
    std::fs::create_dir_all(&base).expect("create the work directory");
    base
}

/// `gcc FLAGS INPUTS -o OUT`; the error carries gcc's diagnostics.
pub fn gcc(flags: &[&str], inputs: &[&Path], out_file: &Path) -> Result<(), String> {
    let out = Command::new("gcc")
        .args(flags)
        .args(inputs)
        .arg("-o")
        .arg(out_file)
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "gcc failed on {inputs:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}
