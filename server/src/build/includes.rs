//! `#include` resolution and the file reader behind it.
//!
//! Search order (GCC's): `"x.h"` tries the including file's directory, then `-iquote` dirs,
//! then `-I`, `-isystem`, `-idirafter` dirs, then the caller's workspace roots. `<x.h>` tries
//! only `-I`, `-isystem`, `-idirafter` dirs: system headers are never read (the library model
//! covers libc), so `<stdio.h>` resolving to nothing is the normal case, not an error.
//!
//! Reads go through [`FileSource`]: the file system ([`FsSource`], which refuses directories,
//! devices, FIFOs, non-UTF-8 and oversized files before reading them), an in-memory map
//! ([`MapSource`], for tests), or anything the language server supplies (open buffers first).

use super::compile_db::{CompileFlags, IncludeDirKind};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// Why a file was not read. `Display` is the message shown to users.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Error)]
pub enum SkipReason {
    #[error("not found")]
    NotFound,
    #[error("is a directory")]
    Directory,
    #[error("not a regular file (device, FIFO or socket)")]
    NotRegularFile,
    #[error("unreadable: {0}")]
    Unreadable(String),
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("too large ({size} bytes, limit {limit})")]
    TooLarge { size: u64, limit: u64 },
    #[error("include cycle")]
    Cycle,
    #[error("include depth limit ({0}) reached")]
    DepthLimit(usize),
    #[error("limit on headers read per file ({0}) reached")]
    FileLimit(usize),
}

/// Supplies file contents to the build model.
pub trait FileSource {
    /// The text of `path`, or why it cannot be had. Must not block on FIFOs or devices.
    fn read(&self, path: &Path) -> Result<Arc<str>, SkipReason>;

    /// Whether something is at `path` (used to find compile databases).
    fn exists(&self, path: &Path) -> bool {
        !matches!(self.read(path), Err(SkipReason::NotFound))
    }

    /// The directive index of `text`, the contents of `path` (a source may cache it: a
    /// header is walked once per translation unit that includes it).
    fn directives(&self, _path: &Path, text: &str) -> Arc<super::scan::DirectiveIndex> {
        Arc::new(super::scan::DirectiveIndex::of(text))
    }
}

impl<F: Fn(&Path) -> Result<Arc<str>, SkipReason>> FileSource for F {
    fn read(&self, path: &Path) -> Result<Arc<str>, SkipReason> {
        self(path)
    }
}

/// The file system, with a size cap.
#[derive(Clone, Debug)]
pub struct FsSource {
    pub max_bytes: u64,
}

/// Default cap on one header or compile database: real headers are far smaller (SQLite's
/// amalgamation, the largest C file in common use, is about 9 MB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

impl Default for FsSource {
    fn default() -> Self {
        FsSource {
            max_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

impl FileSource for FsSource {
    fn read(&self, path: &Path) -> Result<Arc<str>, SkipReason> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(SkipReason::NotFound),
            Err(e) => return Err(SkipReason::Unreadable(e.to_string())),
        };
        if meta.is_dir() {
            return Err(SkipReason::Directory);
        }
        if !meta.is_file() {
            return Err(SkipReason::NotRegularFile);
        }
        if meta.len() > self.max_bytes {
            return Err(SkipReason::TooLarge {
                size: meta.len(),
                limit: self.max_bytes,
            });
        }
        let f = std::fs::File::open(path).map_err(|e| SkipReason::Unreadable(e.to_string()))?;
        let mut bytes = Vec::new();
        // The file may have grown since `metadata`: never read past the cap.
        f.take(self.max_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| SkipReason::Unreadable(e.to_string()))?;
        if bytes.len() as u64 > self.max_bytes {
            return Err(SkipReason::TooLarge {
                size: bytes.len() as u64,
                limit: self.max_bytes,
            });
        }
        String::from_utf8(bytes)
            .map(Arc::from)
            .map_err(|_| SkipReason::NotUtf8)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
}

/// Files held in memory; a path maps to its text or to the reason it cannot be read.
#[derive(Clone, Debug, Default)]
pub struct MapSource {
    pub files: HashMap<PathBuf, Result<Arc<str>, SkipReason>>,
}

impl MapSource {
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        MapSource {
            files: files
                .into_iter()
                .map(|(p, t)| (PathBuf::from(p), Ok(Arc::from(t))))
                .collect(),
        }
    }

    pub fn with_error(mut self, path: &str, reason: SkipReason) -> Self {
        self.files.insert(PathBuf::from(path), Err(reason));
        self
    }
}

impl FileSource for MapSource {
    fn read(&self, path: &Path) -> Result<Arc<str>, SkipReason> {
        self.files
            .get(&normalize(path))
            .cloned()
            .unwrap_or(Err(SkipReason::NotFound))
    }
}

/// Lexical normalization: removes `.` and resolves `..` against the preceding component,
/// without touching the file system (symlinks are not resolved, and paths need not exist).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// The operand of an `#include`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncludeSpec {
    pub name: String,
    /// `<x.h>` rather than `"x.h"`.
    pub angled: bool,
}

/// Reads `"x.h"` or `<x.h>` from the text after `#include`. A computed include
/// (`#include MACRO`) is `None`: the scanner may expand it first and try again.
pub fn parse_include_operand(rest: &str) -> Option<IncludeSpec> {
    let rest = rest.trim_start();
    let (close, angled) = match rest.as_bytes().first()? {
        b'"' => ('"', false),
        b'<' => ('>', true),
        _ => return None,
    };
    let body = &rest[1..];
    let end = body.find(close)?;
    let name = &body[..end];
    (!name.is_empty() && !name.contains('\n')).then(|| IncludeSpec {
        name: name.to_string(),
        angled,
    })
}

/// The outcome of resolving one include.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    Found(PathBuf, Arc<str>),
    /// Found a path that cannot be read (a directory, a device, too large, …).
    Skipped(PathBuf, SkipReason),
    /// Not found anywhere (normal for `<…>` system headers).
    NotFound,
}

/// The search path for one translation unit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IncludeResolver {
    pub quote_dirs: Vec<PathBuf>,
    /// `-I`, then `-isystem`, then `-idirafter` (GCC's order).
    pub angled_dirs: Vec<PathBuf>,
    /// Tried last for quoted includes (the project's folders), so headers resolve without a
    /// compile database.
    pub workspace_roots: Vec<PathBuf>,
    /// The workspace's headers, for an include the search path does not find (see
    /// [`HeaderIndex`]).
    pub workspace_headers: Option<Arc<HeaderIndex>>,
}

/// The headers of the workspace by file name: where an include that the search path does not
/// find most likely points when no compile database says where the project's include
/// directories are. Projects keep headers in `include/`, `lib/`, `test_utils/` and add them with
/// `-I`; without the build's flags, `#include "test_common.h"` and `#include <mruby/data.h>`
/// name a workspace file whose path ends with the include's name. Of several, the one closest
/// to the including file (longest common directory prefix) is taken.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct HeaderIndex {
    by_name: std::collections::BTreeMap<String, Vec<PathBuf>>,
}

impl HeaderIndex {
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut by_name: std::collections::BTreeMap<String, Vec<PathBuf>> = Default::default();
        for p in paths {
            if let Some(n) = p.file_name().and_then(|n| n.to_str()) {
                by_name.entry(n.to_string()).or_default().push(p);
            }
        }
        for v in by_name.values_mut() {
            v.sort();
            v.dedup();
        }
        HeaderIndex { by_name }
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The workspace header an include of `name` from `including_file` most likely means:
    /// among those whose path ends with `name` (component by component), the one sharing the
    /// longest directory prefix with the including file; ties go to the shorter path, then
    /// the first in order.
    pub fn find(&self, name: &str, including_file: &Path) -> Option<&Path> {
        let wanted: Vec<Component> = Path::new(name)
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect();
        if wanted.iter().any(|c| !matches!(c, Component::Normal(_))) {
            return None;
        }
        let base = wanted.last()?.as_os_str().to_str()?;
        let candidates = self.by_name.get(base)?;
        let from: Vec<Component> = including_file
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        candidates
            .iter()
            .filter(|p| {
                let comps: Vec<Component> = p.components().collect();
                comps.len() >= wanted.len() && comps[comps.len() - wanted.len()..] == wanted[..]
            })
            .filter(|p| p.as_path() != including_file)
            // `max_by_key` keeps the last of equals: reversed, the first in order wins.
            .rev()
            .max_by_key(|p| {
                let shared = p
                    .components()
                    .zip(from.iter())
                    .take_while(|(a, b)| a == *b)
                    .count();
                (shared, std::cmp::Reverse(p.components().count()))
            })
            .map(PathBuf::as_path)
    }
}

impl IncludeResolver {
    pub fn new(flags: &CompileFlags, workspace_roots: &[PathBuf]) -> Self {
        let dirs = |k: IncludeDirKind| {
            flags
                .include_dirs
                .iter()
                .filter(move |d| d.kind == k)
                .map(|d| d.path.clone())
        };
        IncludeResolver {
            quote_dirs: dirs(IncludeDirKind::Quote).collect(),
            angled_dirs: dirs(IncludeDirKind::Normal)
                .chain(dirs(IncludeDirKind::System))
                .chain(dirs(IncludeDirKind::After))
                .collect(),
            workspace_roots: workspace_roots.to_vec(),
            workspace_headers: None,
        }
    }

    /// With the workspace's headers as the last resort: for quoted includes always, for
    /// angled ones only when no include directory is known (no compile database, no
    /// `include-dirs`); with those, an angled name found nowhere is a system header.
    pub fn with_workspace_headers(mut self, headers: Arc<HeaderIndex>) -> Self {
        self.workspace_headers = (!headers.is_empty()).then_some(headers);
        self
    }

    /// Candidate paths in search order.
    pub fn candidates(&self, spec: &IncludeSpec, including_file: &Path) -> Vec<PathBuf> {
        let name = Path::new(&spec.name);
        if name.is_absolute() {
            return vec![normalize(name)];
        }
        let mut dirs: Vec<&Path> = Vec::new();
        if !spec.angled {
            dirs.extend(including_file.parent());
            dirs.extend(self.quote_dirs.iter().map(PathBuf::as_path));
        }
        dirs.extend(self.angled_dirs.iter().map(PathBuf::as_path));
        if !spec.angled {
            dirs.extend(self.workspace_roots.iter().map(PathBuf::as_path));
        }
        dirs.into_iter().map(|d| normalize(&d.join(name))).collect()
    }

    /// The first candidate that exists; a candidate that exists but cannot be read stops the
    /// search (as the compiler would fail on it) and is reported.
    pub fn resolve(
        &self,
        spec: &IncludeSpec,
        including_file: &Path,
        src: &dyn FileSource,
    ) -> Resolution {
        for p in self.candidates(spec, including_file) {
            match src.read(&p) {
                Ok(text) => return Resolution::Found(p, text),
                Err(SkipReason::NotFound) => continue,
                Err(reason) => return Resolution::Skipped(p, reason),
            }
        }
        if let Some(index) = &self.workspace_headers
            && (!spec.angled || self.angled_dirs.is_empty())
            && let Some(p) = index.find(&spec.name, including_file)
        {
            return match src.read(p) {
                Ok(text) => Resolution::Found(p.to_path_buf(), text),
                Err(SkipReason::NotFound) => Resolution::NotFound,
                Err(reason) => Resolution::Skipped(p.to_path_buf(), reason),
            };
        }
        Resolution::NotFound
    }
}

#[cfg(test)]
mod tests {
    use super::super::compile_db::parse_arguments;
    use super::*;

    fn spec(s: &str) -> IncludeSpec {
        parse_include_operand(s).unwrap()
    }

    #[test]
    fn operands() {
        assert_eq!(
            parse_include_operand(" \"a/b.h\" // c"),
            Some(IncludeSpec {
                name: "a/b.h".into(),
                angled: false
            })
        );
        assert!(parse_include_operand("<stdio.h>").unwrap().angled);
        assert_eq!(parse_include_operand("HDR"), None);
        assert_eq!(parse_include_operand("\"unterminated"), None);
        assert_eq!(parse_include_operand("\"\""), None);
    }

    #[test]
    fn quoted_search_order() {
        let flags = parse_arguments(
            &["-iquote", "/q", "-I/i", "-isystem", "/s"].map(String::from),
            Path::new("/"),
            true,
        );
        let r = IncludeResolver::new(&flags, &[PathBuf::from("/ws")]);
        let c = r.candidates(&spec("\"../x.h\""), Path::new("/p/src/a.c"));
        let c: Vec<_> = c.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(c, ["/p/x.h", "/x.h", "/x.h", "/x.h", "/x.h"]);
        let c = r.candidates(&spec("\"x.h\""), Path::new("/p/a.c"));
        let c: Vec<_> = c.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(c, ["/p/x.h", "/q/x.h", "/i/x.h", "/s/x.h", "/ws/x.h"]);
        let c = r.candidates(&spec("<x.h>"), Path::new("/p/a.c"));
        let c: Vec<_> = c.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(c, ["/i/x.h", "/s/x.h"]);
    }

    #[test]
    fn resolution_outcomes() {
        let src = MapSource::new([("/p/inc/x.h", "int x;"), ("/ws/w.h", "")])
            .with_error("/p/dir.h", SkipReason::Directory);
        let r = IncludeResolver::new(
            &parse_arguments(&["-Iinc".to_string()], Path::new("/p"), true),
            &[PathBuf::from("/ws")],
        );
        let from = Path::new("/p/a.c");
        assert!(
            matches!(r.resolve(&spec("\"x.h\""), from, &src), Resolution::Found(p, _) if p == Path::new("/p/inc/x.h"))
        );
        assert!(matches!(
            r.resolve(&spec("<x.h>"), from, &src),
            Resolution::Found(..)
        ));
        assert!(matches!(
            r.resolve(&spec("\"w.h\""), from, &src),
            Resolution::Found(..)
        ));
        assert_eq!(r.resolve(&spec("<w.h>"), from, &src), Resolution::NotFound);
        assert_eq!(
            r.resolve(&spec("<stdio.h>"), from, &src),
            Resolution::NotFound
        );
        assert_eq!(
            r.resolve(&spec("\"dir.h\""), from, &src),
            Resolution::Skipped(PathBuf::from("/p/dir.h"), SkipReason::Directory)
        );
    }

    #[test]
    fn workspace_headers_resolve_what_the_search_path_misses() {
        let index = Arc::new(HeaderIndex::new(
            [
                "/p/test_utils/test_common.h",
                "/p/include/mruby/data.h",
                "/p/include/mruby.h",
                "/p/a/config.h",
                "/p/b/config.h",
            ]
            .map(PathBuf::from),
        ));
        let src = MapSource::new([
            ("/p/test_utils/test_common.h", ""),
            ("/p/include/mruby/data.h", ""),
            ("/p/include/mruby.h", ""),
            ("/p/a/config.h", ""),
            ("/p/b/config.h", ""),
        ]);
        let r = IncludeResolver::new(&CompileFlags::default(), &[PathBuf::from("/p")])
            .with_workspace_headers(index.clone());
        let found = |r: &IncludeResolver, s: &str, from: &str| match r.resolve(
            &spec(s),
            Path::new(from),
            &src,
        ) {
            Resolution::Found(p, _) => Some(p),
            _ => None,
        };
        assert_eq!(
            found(&r, "\"test_common.h\"", "/p/libarchive/test/test.h"),
            Some(PathBuf::from("/p/test_utils/test_common.h"))
        );
        assert_eq!(
            found(&r, "<mruby/data.h>", "/p/src/io.c"),
            Some(PathBuf::from("/p/include/mruby/data.h"))
        );
        assert_eq!(
            found(&r, "<data.h>", "/p/src/io.c"),
            Some(PathBuf::from("/p/include/mruby/data.h"))
        );
        assert_eq!(found(&r, "<other/data.h>", "/p/src/io.c"), None);
        assert_eq!(
            found(&r, "\"config.h\"", "/p/b/x/y.c"),
            Some(PathBuf::from("/p/b/config.h"))
        );
        assert_eq!(found(&r, "<stdio.h>", "/p/src/io.c"), None);
        // Include directories known: an angled name they do not have is a system header.
        let args: Vec<String> = ["cc", "-I/p/include", "x.c"].map(String::from).to_vec();
        let flags = parse_arguments(&args, Path::new("/p"), true);
        let r = IncludeResolver::new(&flags, &[]).with_workspace_headers(index);
        assert_eq!(
            found(&r, "<mruby/data.h>", "/p/src/io.c"),
            Some(PathBuf::from("/p/include/mruby/data.h"))
        );
        assert_eq!(found(&r, "<data.h>", "/p/src/io.c"), None);
        assert_eq!(
            found(&r, "\"test_common.h\"", "/p/x.c"),
            Some(PathBuf::from("/p/test_utils/test_common.h"))
        );
    }

    #[test]
    fn file_system_refuses_bad_files() {
        let fs = FsSource { max_bytes: 8 };
        let dir = std::env::temp_dir().join(format!("reductio-build-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.h");
        std::fs::write(&big, "0123456789").unwrap();
        let bin = dir.join("bin.h");
        std::fs::write(&bin, [0xff, 0xfe, 0]).unwrap();
        let ok = dir.join("ok.h");
        std::fs::write(&ok, "int x;").unwrap();
        assert!(matches!(fs.read(&big), Err(SkipReason::TooLarge { .. })));
        assert_eq!(fs.read(&bin), Err(SkipReason::NotUtf8));
        assert_eq!(fs.read(&dir), Err(SkipReason::Directory));
        assert_eq!(fs.read(&dir.join("none.h")), Err(SkipReason::NotFound));
        assert_eq!(&*fs.read(&ok).unwrap(), "int x;");
        #[cfg(unix)]
        assert_eq!(
            fs.read(Path::new("/dev/null")),
            Err(SkipReason::NotRegularFile)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
