//! Finding the C files of a workspace and the `reductio.toml` that configures it (shared by the
//! CLI and the language server).

use crate::config::{Config, ConfigError};
use std::path::{Path, PathBuf};

/// `.c` and `.h` files under `paths` (files are taken as given), honouring `.gitignore` and the
/// configuration's `exclude` globs. Sorted, deduplicated. A binary file with a C name found
/// in a directory is left out (see [`discover_files`] for the list of them).
pub fn discover(paths: &[PathBuf], exclude: &[String]) -> Result<Vec<PathBuf>, String> {
    discover_files(paths, exclude).map(|d| d.files)
}

/// What [`discover_files`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The C files to analyse, sorted, deduplicated.
    pub files: Vec<PathBuf>,
    /// Files with a C name found in a directory but left out, each with the reason (a binary
    /// file: NUL bytes in its first 8 KiB), sorted.
    pub skipped: Vec<(PathBuf, String)>,
}

/// [`discover`], with the files it left out. A file named in `paths` that is not C is an
/// error ([`check_source_path`]); one found in a directory is skipped, so that a binary blob
/// named `*.c` in a tree costs one read of 8 KiB, not minutes of parsing.
pub fn discover_files(paths: &[PathBuf], exclude: &[String]) -> Result<Discovery, String> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let overrides_for = |root: &Path| -> Result<ignore::overrides::Override, String> {
        let mut b = ignore::overrides::OverrideBuilder::new(root);
        for pat in exclude {
            b.add(&format!("!{pat}"))
                .map_err(|e| format!("bad exclude pattern `{pat}`: {e}"))?;
        }
        b.build().map_err(|e| e.to_string())
    };
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        if meta.is_file() {
            check_source_path(p)?;
            out.push(p.clone());
            continue;
        }
        let walker = ignore::WalkBuilder::new(p)
            .overrides(overrides_for(p)?)
            .require_git(false)
            .build();
        for entry in walker {
            let entry = entry.map_err(|e| e.to_string())?;
            let path = entry.path();
            if entry.file_type().map(|t| t.is_file()).unwrap_or(false) && is_c_file(path) {
                if let Ok(true) = looks_binary(path) {
                    skipped.push((
                        path.to_path_buf(),
                        "not C source text (it contains NUL bytes: a binary file?)".to_string(),
                    ));
                    continue;
                }
                out.push(path.to_path_buf());
            }
        }
    }
    out.sort();
    out.dedup();
    skipped.sort();
    skipped.dedup();
    Ok(Discovery {
        files: out,
        skipped,
    })
}

/// Whether the file's first 8 KiB hold a NUL byte (C source text never does).
fn looks_binary(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let mut head = Vec::with_capacity(8192);
    std::fs::File::open(path)?
        .take(8192)
        .read_to_end(&mut head)?;
    Ok(head.contains(&0))
}

/// The `reductio.toml` for a path: in the directory itself (or the file's directory), or the
/// nearest ancestor that has one.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(start).ok()?;
    let mut dir = if abs.is_dir() {
        abs
    } else {
        abs.parent()?.to_path_buf()
    };
    loop {
        let c = dir.join("reductio.toml");
        if c.is_file() {
            return Some(c);
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// Load a `reductio.toml`; its directory becomes the build model's root (relative
/// `include-dirs` resolve against it).
pub fn load_config(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut cfg =
        Config::from_toml(&text).map_err(|ConfigError(e)| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    cfg.build_root = Some(crate::db::absolute(dir));
    Ok(cfg)
}

/// A file named on the command line must be C: a `.c` or `.h` name and text content. Checked
/// before anything is read in full, so a large binary is refused at once.
pub fn check_source_path(path: &Path) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    if !is_c_file(path) {
        return Err(format!(
            "{} is not a C file: reductio analyses C sources and headers (.c, .h)",
            path.display()
        ));
    }
    if looks_binary(path).map_err(|e| format!("cannot read {}: {e}", path.display()))? {
        return Err(format!(
            "{} is not C source text (it contains NUL bytes: a binary file?)",
            path.display()
        ));
    }
    Ok(())
}

/// Read a source file; invalid UTF-8 is replaced (and reported by the caller).
pub fn read_source(path: &Path) -> Result<(String, bool), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(crate::syntax::decode_source(&bytes))
}

/// Whether `path` names a C source or header (`.c`, `.h`): the files the CLI and the server
/// analyse.
pub fn is_c_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h"))
}
