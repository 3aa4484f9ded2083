//! The build model: what the compiler would see of a C file. Compile flags (from
//! `compile_commands.json`, `compile_flags.txt`, or config), `#include` resolution into
//! project headers, the macro table, conditional inclusion decided three-valued, macro
//! expansion with a map back to the user's text, and function attributes.
//!
//! Plain data in, plain data out: nothing here knows about the IR, probes, salsa or LSP; file
//! contents come through [`FileSource`], so the language server can supply open buffers and
//! tests an in-memory map. Layer: below `syntax`, above `ir` (it does not use either).
//!
//! Invariants:
//! - Never panics and stays bounded on any input: every loop over text is linear in it, and
//!   includes ([`ScanLimits`]), expansion and `#if` evaluation ([`Budget`]) have limits; hitting
//!   one is reported (`truncated`, [`SkipReason`]), never silent.
//! - Three-valued knowledge: what the model does not know (a macro no reachable file or flag
//!   defines) is [`Truth::Unknown`], never guessed as 0, unless the flags are a complete
//!   compile command ([`CompileFlags::complete`]).
//! - Offsets are byte offsets into the text given; expanded text maps back through
//!   [`Expanded::original_range`], and text outside macro invocations is copied unchanged.
//! - System headers (`<…>` not found on `-I`/`-isystem` paths) are never read: the library
//!   model covers libc.

pub mod attributes;
pub mod compile_db;
pub mod cond;
pub mod decorations;
pub mod directive;
pub mod expand;
pub mod includes;
pub mod lex;
pub mod macros;
pub mod scan;
pub mod target;

#[cfg(test)]
mod fuzz_tests;

pub use attributes::{FnAttributes, function_attributes};
pub use compile_db::{CompileDb, CompileDbError, CompileFlags, IncludeDir, IncludeDirKind};
pub use cond::{
    CondArm, CondGroup, Live, Truth, conditional_groups, inactive_ranges, mask_inactive,
};
pub use decorations::decoration_ranges;
pub use expand::{Budget, Expanded, Segment, expand};
pub use includes::{
    FileSource, FsSource, HeaderIndex, IncludeResolver, IncludeSpec, MapSource, SkipReason,
};
pub use macros::{MacroDef, MacroStatus, MacroTable};
pub use scan::{Scan, ScanLimits, SkippedInclude, scan};
pub use target::Target;

use std::path::{Path, PathBuf};

/// Where build settings come from besides the files next to the source: the CLI's
/// `--compile-commands FILE` and the `include-dirs` / `defines` keys of `reductio.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BuildConfig {
    /// An explicit compile database; when set, discovery is not attempted.
    pub compile_commands: Option<PathBuf>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// Directory relative config paths resolve against (the config file's directory).
    pub root: PathBuf,
}

/// The flags of `file`: from the explicit database, else the one discovered as clangd does,
/// with the config's directories and defines merged on top. A database that cannot be read
/// or parsed is returned as the error beside the flags the rest still gives, so analysis goes
/// on without it.
pub fn flags_for_file(
    file: &Path,
    config: &BuildConfig,
    src: &dyn FileSource,
) -> (CompileFlags, Option<CompileDbError>) {
    let db = match &config.compile_commands {
        Some(p) => CompileDb::load(p, src).map(Some),
        None => CompileDb::for_file(file, src),
    };
    let (mut flags, err) = match db {
        Ok(Some(db)) => (db.flags_for(file).unwrap_or_default(), None),
        Ok(None) => (CompileFlags::default(), None),
        Err(e) => (CompileFlags::default(), Some(e)),
    };
    flags.merge_config(&config.include_dirs, &config.defines, &config.root);
    (flags, err)
}

#[cfg(test)]
mod tests {
    //! The triage cases end to end: a file, a header in a parent directory, a compile
    //! database; scan, mask the dead arms, expand a function body, read attributes.
    use super::*;

    fn project() -> MapSource {
        MapSource::new([
            (
                "/p/build/compile_commands.json",
                r#"[{"directory": "/p/build", "file": "../tests/t.c",
                     "command": "cc -I../include -DUSE_FREE=1 -c ../tests/t.c"}]"#,
            ),
            (
                "/p/include/util.h",
                "#ifndef UTIL_H\n#define UTIL_H\n\
                 #define ATTR_NORETURN __attribute__((noreturn))\n\
                 #define FATAL(m) abort()\n\
                 #define DATA_PTR(x) ((x)->data)\n\
                 ATTR_NORETURN void die(const char *msg);\n\
                 #endif\n",
            ),
            (
                "/p/tests/t.c",
                "#include \"util.h\"\n#include <stdlib.h>\n\
                 void f(struct obj *o) {\n\
                 \x20 char *p = malloc(8);\n\
                 \x20 if (!p) FATAL(\"oom\");\n\
                 \x20 DATA_PTR(o) = p;\n\
                 #if USE_FREE\n\
                 \x20 free(p);\n\
                 #else\n\
                 \x20 keep(p);\n\
                 #endif\n\
                 }\n",
            ),
        ])
    }

    #[test]
    fn triage_cases_end_to_end() {
        let src = project();
        let file = Path::new("/p/tests/t.c");
        let (flags, err) = flags_for_file(file, &BuildConfig::default(), &src);
        assert_eq!(err, None);
        assert!(flags.complete);
        let text = src.read(file).unwrap();
        let resolver = IncludeResolver::new(&flags, &[PathBuf::from("/p")]);
        let s = scan(file, &text, &flags, &resolver, &src, &ScanLimits::default());
        assert_eq!(s.headers, [PathBuf::from("/p/include/util.h")]);
        assert_eq!(s.groups[0].live, Live::Arm(0));

        let masked = mask_inactive(&text, &s.groups);
        let body = masked.find("void f").unwrap()..masked.len();
        let e = expand(&masked, body, &s.table, &Budget::default());
        assert!(e.text.contains("if (!p) abort();"), "{}", e.text);
        assert!(e.text.contains("((o)->data) = p;"));
        assert!(e.text.contains("free(p);") && !e.text.contains("keep(p)"));
        assert!(!e.text.contains("#if"));
        // `abort` points at the FATAL invocation the user wrote.
        let a = e.text.find("abort").unwrap();
        let r = e.original_range(a..a + 5);
        assert_eq!(&text[r], "FATAL(\"oom\")");

        // Attributes from the header, after expanding it with its own macros.
        let h = src.read(Path::new("/p/include/util.h")).unwrap();
        let eh = expand(&h, 0..h.len(), &s.table, &Budget::default());
        assert!(function_attributes(&eh.text)["die"].noreturn);
    }

    #[test]
    fn malformed_database_still_leaves_config_flags() {
        let src = MapSource::new([("/p/compile_commands.json", "[{oops")]);
        let config = BuildConfig {
            defines: vec!["X=1".into()],
            include_dirs: vec![PathBuf::from("inc")],
            root: PathBuf::from("/p"),
            ..Default::default()
        };
        let (flags, err) = flags_for_file(Path::new("/p/a.c"), &config, &src);
        assert!(matches!(err, Some(CompileDbError::Malformed { .. })));
        assert_eq!(flags.defines, ["X=1"]);
        assert_eq!(flags.include_dirs[0].path, PathBuf::from("/p/inc"));
        // No database at all: quoted includes still resolve next to the file and in roots.
        let (flags, err) = flags_for_file(Path::new("/q/a.c"), &BuildConfig::default(), &src);
        assert_eq!((flags, err), (CompileFlags::default(), None));
    }

    /// Cost on a real file: `REDUCTIO_BUILD_FILE=path/x.c REDUCTIO_BUILD_ARGS="-Iinclude -I."
    /// cargo test --release --lib build::tests::real_file -- --ignored --nocapture`
    /// (relative `-I` paths resolve against the file's directory).
    #[test]
    #[ignore]
    fn real_file() {
        let Ok(path) = std::env::var("REDUCTIO_BUILD_FILE") else {
            return;
        };
        let file = includes::normalize(&std::env::current_dir().unwrap().join(path));
        let args: Vec<String> = std::env::var("REDUCTIO_BUILD_ARGS")
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect();
        let flags = compile_db::parse_arguments(&args, file.parent().unwrap(), false);
        let src = FsSource::default();
        let text = src.read(&file).unwrap();
        let t = std::time::Instant::now();
        let resolver = IncludeResolver::new(&flags, &[]);
        let s = scan(
            &file,
            &text,
            &flags,
            &resolver,
            &src,
            &ScanLimits::default(),
        );
        let scanned = t.elapsed();
        let masked = mask_inactive(&text, &s.groups);
        let e = expand(&masked, 0..masked.len(), &s.table, &Budget::default());
        let attrs = function_attributes(&e.text);
        for k in s.skipped.iter().take(5) {
            eprintln!("skipped {:?} {:?}: {}", k.spec, k.path, k.reason);
        }
        eprintln!("not found {:?}", s.not_found);
        eprintln!(
            "scan {scanned:?} ({} visits, {} headers, {} macros, {} groups, {} undecided, {} skipped, {} not found); \
             expand+attributes {:?} ({} expansions, {} -> {} bytes, truncated {}); {} noreturn",
            s.visits,
            s.headers.len(),
            s.table.len(),
            s.groups.len(),
            s.groups.iter().filter(|g| g.live == Live::Unknown).count(),
            s.skipped.len(),
            s.not_found.len(),
            t.elapsed() - scanned,
            e.expansions,
            text.len(),
            e.text.len(),
            e.truncated,
            attrs.values().filter(|a| a.noreturn).count(),
        );
    }
}
