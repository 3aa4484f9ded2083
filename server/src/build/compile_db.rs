//! The build description of a source file: `compile_commands.json` or `compile_flags.txt`,
//! found the way clangd finds them, or named explicitly, plus `reductio.toml` keys.
//!
//! Discovery (clangd's `DirectoryBasedGlobalCompilationDatabase`): walk from the file's
//! directory up to the root; in each directory try `compile_commands.json`,
//! `build/compile_commands.json`, `compile_flags.txt`, `build/compile_flags.txt`; the nearest
//! directory that has one wins. All reads go through a [`FileSource`], so tests and the
//! language server can supply the files.

use super::includes::{FileSource, SkipReason, normalize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What the preprocessor needs from one compile command.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompileFlags {
    /// Search directories in command-line order, absolute.
    pub include_dirs: Vec<IncludeDir>,
    /// `NAME` or `NAME=VALUE`, later flags overriding earlier ones.
    pub defines: Vec<String>,
    pub undefines: Vec<String>,
    /// `-include FILE`, absolute, in order.
    pub forced_includes: Vec<PathBuf>,
    /// The flags come from a real compile command for this file (not inferred from a sibling,
    /// not from `compile_flags.txt` or config): macros it does not define are undefined.
    pub complete: bool,
    /// The system the compile command targets, when its words say (`--target=…`, a MinGW
    /// or `cl` compiler): decides the system's predefined macros ([`super::target`]).
    pub target: Option<super::target::Target>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IncludeDirKind {
    /// `-iquote`: searched for `"x.h"` only.
    Quote,
    /// `-I`.
    Normal,
    /// `-isystem`.
    System,
    /// `-idirafter`.
    After,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncludeDir {
    pub path: PathBuf,
    pub kind: IncludeDirKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CompileDbError {
    #[error("{path}: malformed compile database: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error("{path}: cannot read compile database: {reason}")]
    Unreadable { path: PathBuf, reason: SkipReason },
}

/// Which kind of build description a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DbFormat {
    CompileCommands,
    CompileFlags,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompileCommand {
    pub directory: PathBuf,
    /// Absolute, normalized.
    pub file: PathBuf,
    pub arguments: Vec<String>,
}

/// A loaded build description.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CompileDb {
    Commands {
        path: PathBuf,
        commands: Vec<CompileCommand>,
    },
    /// `compile_flags.txt`: the same flags for every file, paths relative to its directory.
    Flags {
        path: PathBuf,
        arguments: Vec<String>,
    },
}

/// The build description that governs `file`, if any (its path and format).
pub fn discover(file: &Path, src: &dyn FileSource) -> Option<(PathBuf, DbFormat)> {
    let dir = file.parent()?;
    for d in dir.ancestors() {
        for (rel, fmt) in [
            ("compile_commands.json", DbFormat::CompileCommands),
            ("build/compile_commands.json", DbFormat::CompileCommands),
            ("compile_flags.txt", DbFormat::CompileFlags),
            ("build/compile_flags.txt", DbFormat::CompileFlags),
        ] {
            let p = d.join(rel);
            if src.exists(&p) {
                return Some((p, fmt));
            }
        }
    }
    None
}

impl CompileDb {
    /// Loads `path` (format chosen by its name: `*.json` is a compile database, anything else
    /// one argument per line), e.g. for `--compile-commands FILE`.
    pub fn load(path: &Path, src: &dyn FileSource) -> Result<CompileDb, CompileDbError> {
        let text = src
            .read(path)
            .map_err(|reason| CompileDbError::Unreadable {
                path: path.to_path_buf(),
                reason,
            })?;
        if path.extension().is_some_and(|e| e == "json") {
            Self::parse_json(path, &text)
        } else {
            Ok(Self::parse_flags_txt(path, &text))
        }
    }

    /// Finds and loads the build description of `file`; `Ok(None)` when there is none.
    pub fn for_file(
        file: &Path,
        src: &dyn FileSource,
    ) -> Result<Option<CompileDb>, CompileDbError> {
        match discover(file, src) {
            Some((p, _)) => Self::load(&p, src).map(Some),
            None => Ok(None),
        }
    }

    pub fn parse_json(path: &Path, text: &str) -> Result<CompileDb, CompileDbError> {
        let malformed = |message: String| CompileDbError::Malformed {
            path: path.to_path_buf(),
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| malformed(e.to_string()))?;
        let entries = value
            .as_array()
            .ok_or_else(|| malformed("expected a JSON array of entries".into()))?;
        let db_dir = path.parent().unwrap_or(Path::new("/"));
        let mut commands = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let field = |k: &str| e.get(k).and_then(|v| v.as_str());
            let directory = field("directory")
                .ok_or_else(|| malformed(format!("entry {i}: missing \"directory\"")))?;
            let file =
                field("file").ok_or_else(|| malformed(format!("entry {i}: missing \"file\"")))?;
            let arguments = if let Some(args) = e.get("arguments") {
                args.as_array()
                    .and_then(|a| a.iter().map(|s| s.as_str().map(String::from)).collect())
                    .ok_or_else(|| {
                        malformed(format!("entry {i}: \"arguments\" is not a string array"))
                    })?
            } else if let Some(cmd) = field("command") {
                shell_split(cmd)
            } else {
                return Err(malformed(format!(
                    "entry {i}: needs \"arguments\" or \"command\""
                )));
            };
            let directory = normalize(&db_dir.join(directory));
            let file = normalize(&directory.join(file));
            commands.push(CompileCommand {
                directory,
                file,
                arguments,
            });
        }
        Ok(CompileDb::Commands {
            path: path.to_path_buf(),
            commands,
        })
    }

    pub fn parse_flags_txt(path: &Path, text: &str) -> CompileDb {
        CompileDb::Flags {
            path: path.to_path_buf(),
            arguments: text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
        }
    }

    /// The flags for `file`. A compile database without an entry for the file (a header, a
    /// new file) lends the flags of the entry nearest to it in the directory tree, as clangd
    /// interpolates; those flags are not `complete`.
    pub fn flags_for(&self, file: &Path) -> Option<CompileFlags> {
        let file = normalize(file);
        match self {
            CompileDb::Flags { path, arguments } => {
                let dir = path.parent().unwrap_or(Path::new("/"));
                Some(parse_arguments(arguments, dir, false))
            }
            CompileDb::Commands { commands, .. } => {
                if let Some(c) = commands.iter().find(|c| c.file == file) {
                    return Some(parse_arguments(&c.arguments, &c.directory, true));
                }
                // Longest shared directory prefix; ties go to the first entry.
                let c = commands.iter().min_by_key(|c| {
                    std::cmp::Reverse(common_prefix(c.file.parent(), file.parent()))
                })?;
                Some(parse_arguments(&c.arguments, &c.directory, false))
            }
        }
    }
}

fn common_prefix(a: Option<&Path>, b: Option<&Path>) -> usize {
    match (a, b) {
        (Some(a), Some(b)) => a
            .components()
            .zip(b.components())
            .take_while(|(x, y)| x == y)
            .count(),
        _ => 0,
    }
}

/// Reads the flags the build model needs from compiler arguments (the compiler name and
/// everything else are ignored); relative paths resolve against `dir`.
pub fn parse_arguments(args: &[String], dir: &Path, complete: bool) -> CompileFlags {
    let mut f = CompileFlags {
        complete,
        target: super::target::Target::from_arguments(args),
        ..Default::default()
    };
    let abs = |p: &str| normalize(&dir.join(p));
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if matches!(
            a,
            "-isysroot" | "-imacros" | "-o" | "-MF" | "-MT" | "-MQ" | "-x"
        ) {
            i += 1; // skip the operand so it is not read as a flag
            continue;
        }
        let mut value = None;
        let mut flag = "";
        for name in [
            "-iquote",
            "-isystem",
            "-idirafter",
            "--include",
            "-include",
            "-I",
            "-D",
            "-U",
        ] {
            if a == name {
                value = args.get(i).cloned();
                i += 1;
                flag = name;
                break;
            }
            if let Some(v) = a.strip_prefix(name) {
                let v = if name.starts_with("--") {
                    v.strip_prefix('=')
                } else {
                    Some(v)
                };
                if let Some(v) = v {
                    value = Some(v.to_string());
                    flag = name;
                    break;
                }
            }
        }
        let Some(v) = value else { continue };
        let dir_of = |kind| IncludeDir {
            path: abs(&v),
            kind,
        };
        match flag {
            "-iquote" => f.include_dirs.push(dir_of(IncludeDirKind::Quote)),
            "-isystem" => f.include_dirs.push(dir_of(IncludeDirKind::System)),
            "-idirafter" => f.include_dirs.push(dir_of(IncludeDirKind::After)),
            "-I" => f.include_dirs.push(dir_of(IncludeDirKind::Normal)),
            "-include" | "--include" => f.forced_includes.push(abs(&v)),
            "-D" => {
                let name = v.split('=').next().unwrap_or("").to_string();
                f.undefines.retain(|u| *u != name);
                f.defines
                    .retain(|d| d.split('=').next() != Some(name.as_str()));
                if !name.is_empty() {
                    f.defines.push(v);
                }
            }
            "-U" => {
                f.defines
                    .retain(|d| d.split('=').next() != Some(v.as_str()));
                if !v.is_empty() && !f.undefines.contains(&v) {
                    f.undefines.push(v);
                }
            }
            _ => {}
        }
    }
    f
}

impl CompileFlags {
    /// Adds `include-dirs` and `defines` from `reductio.toml` (relative dirs resolve against
    /// `root`, the directory of the config file). Config comes after the compile command, so
    /// its defines win.
    pub fn merge_config(&mut self, include_dirs: &[PathBuf], defines: &[String], root: &Path) {
        for d in include_dirs {
            let path = normalize(&root.join(d));
            if !self.include_dirs.iter().any(|x| x.path == path) {
                self.include_dirs.push(IncludeDir {
                    path,
                    kind: IncludeDirKind::Normal,
                });
            }
        }
        let args: Vec<String> = defines.iter().map(|d| format!("-D{d}")).collect();
        let extra = parse_arguments(&args, root, false);
        for d in extra.defines {
            let name = d.split('=').next().unwrap_or("");
            self.defines.retain(|x| x.split('=').next() != Some(name));
            self.undefines.retain(|u| u != name);
            self.defines.push(d);
        }
    }
}

/// POSIX-shell-like word splitting of a `command` string: whitespace separates words; single
/// quotes are literal; double quotes allow `\"` and `\\`; a backslash outside quotes escapes the
/// next character.
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            cur.extend(chars.next());
                        }
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::includes::MapSource;
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn shell_words() {
        assert_eq!(
            shell_split(r#"cc -DMSG="\"hi there\"" -I 'a b' x\ y.c"#),
            ["cc", "-DMSG=\"hi there\"", "-I", "a b", "x y.c"]
        );
        assert_eq!(shell_split("  "), Vec::<String>::new());
        assert_eq!(shell_split("a ''"), ["a", ""]);
    }

    #[test]
    fn discovery_prefers_nearest_directory_then_json() {
        let src = MapSource::new([
            ("/p/compile_commands.json", "[]"),
            ("/p/src/build/compile_flags.txt", "-DX"),
            ("/p/src/sub/a.c", ""),
        ]);
        assert_eq!(
            discover(&p("/p/src/sub/a.c"), &src),
            Some((p("/p/src/build/compile_flags.txt"), DbFormat::CompileFlags))
        );
        assert_eq!(
            discover(&p("/p/other/b.c"), &src),
            Some((p("/p/compile_commands.json"), DbFormat::CompileCommands))
        );
        assert_eq!(discover(&p("/q/c.c"), &src), None);
    }

    #[test]
    fn compile_commands_entries_and_flags() {
        let json = r#"[
          {"directory": "/p/build", "file": "../src/a.c",
           "arguments": ["cc", "-I../include", "-iquote", "q", "-isystem/usr/x", "-idirafter", "late",
                         "-DA", "-DB=2", "-UC", "-include", "cfg.h", "-c", "../src/a.c"]},
          {"directory": "/p/build", "file": "/p/src/b.c", "command": "cc -D 'S=\"x y\"' -c b.c"}
        ]"#;
        let src = MapSource::new([("/p/build/compile_commands.json", json)]);
        let db = CompileDb::load(&p("/p/build/compile_commands.json"), &src).unwrap();
        let f = db.flags_for(&p("/p/src/a.c")).unwrap();
        assert!(f.complete);
        let dirs: Vec<_> = f
            .include_dirs
            .iter()
            .map(|d| (d.path.to_str().unwrap(), d.kind))
            .collect();
        assert_eq!(
            dirs,
            [
                ("/p/include", IncludeDirKind::Normal),
                ("/p/build/q", IncludeDirKind::Quote),
                ("/usr/x", IncludeDirKind::System),
                ("/p/build/late", IncludeDirKind::After),
            ]
        );
        assert_eq!(f.defines, ["A", "B=2"]);
        assert_eq!(f.undefines, ["C"]);
        assert_eq!(f.forced_includes, [p("/p/build/cfg.h")]);
        let f = db.flags_for(&p("/p/src/b.c")).unwrap();
        assert_eq!(f.defines, ["S=\"x y\""]);
        // A header borrows the nearest entry's flags, marked incomplete.
        let f = db.flags_for(&p("/p/src/a.h")).unwrap();
        assert!(!f.complete);
        assert_eq!(f.defines, ["A", "B=2"]);
    }

    #[test]
    fn later_flags_override_earlier() {
        let args: Vec<String> = ["-DX=1", "-UX", "-DY", "-DY=3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let f = parse_arguments(&args, Path::new("/"), true);
        assert_eq!(f.defines, ["Y=3"]);
        assert_eq!(f.undefines, ["X"]);
    }

    #[test]
    fn compile_flags_txt_relative_to_its_directory() {
        let src = MapSource::new([("/p/compile_flags.txt", "-Iinc\n\n-DDEBUG\n")]);
        let db = CompileDb::load(&p("/p/compile_flags.txt"), &src).unwrap();
        let f = db.flags_for(&p("/p/src/x.c")).unwrap();
        assert_eq!(f.include_dirs[0].path, p("/p/inc"));
        assert_eq!(f.defines, ["DEBUG"]);
        assert!(!f.complete);
    }

    #[test]
    fn malformed_databases_are_errors_not_panics() {
        for bad in [
            "",
            "{",
            "{}",
            "[1]",
            r#"[{"directory": "/", "file": "a.c"}]"#,
            r#"[{"directory": "/", "file": "a.c", "arguments": [1]}]"#,
            r#"[{"file": "a.c", "command": "cc"}]"#,
        ] {
            let err = CompileDb::parse_json(&p("/x/compile_commands.json"), bad).unwrap_err();
            assert!(matches!(err, CompileDbError::Malformed { .. }), "{bad}");
            assert!(err.to_string().contains("/x/compile_commands.json"));
        }
        let src = MapSource::new([]);
        assert!(matches!(
            CompileDb::load(&p("/nope/compile_commands.json"), &src),
            Err(CompileDbError::Unreadable { .. })
        ));
    }

    #[test]
    fn config_merges_after_the_command() {
        let mut f = parse_arguments(&["-DX=1".to_string()], Path::new("/p"), true);
        f.merge_config(
            &[p("inc"), p("/abs")],
            &["X=2".into(), "Y".into()],
            Path::new("/p"),
        );
        assert_eq!(f.defines, ["X=2", "Y"]);
        assert_eq!(f.include_dirs.len(), 2);
        assert_eq!(f.include_dirs[0].path, p("/p/inc"));
    }
}
