//! Suppressions (issue 20): reports a team has judged and silenced, with a reason.
//!
//! Two sources:
//! - a comment on the reported line, or alone on the line above it:
//!   `// reductio-ignore: leak -- freed by the pool at exit` (or `/* … */`). The kinds before
//!   `--` are `leak`, `unproved` or `all` (comma-separated); the reason after `--` is required.
//! - `[[suppress]]` entries of `reductio.toml` (`config::SuppressRule`): globs on the file,
//!   function and variable, a probe kind, a verdict, and a required reason.
//!
//! A suppressed report is not a diagnostic and does not change the exit code; the JSON report
//! lists it under `"suppressed"` with its reason. Only leaks and unproved probes are ever
//! suppressed (a proof is not a report). The CLI and the language server use this module alike.

use crate::config::SuppressRule;
use crate::db::{Finding, VerdictKind};
use crate::syntax::TextRange;
use globset::{Glob, GlobBuilder, GlobMatcher};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The word a suppression comment starts with.
pub const DIRECTIVE: &str = "reductio-ignore";

/// The probe kinds a `[[suppress]]` entry may name (`ProbeKind::as_str`).
pub const PROBE_KINDS: [&str; 7] = [
    "assignment",
    "allocation",
    "free-field",
    "return-local",
    "scope-end",
    "assigned-return",
    "ignored-return",
];

fn glob(pattern: &str, what: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g: Glob| g.compile_matcher())
        .map_err(|e| format!("`{pattern}` is not a valid {what} glob: {e}"))
}

/// Validate a `[[suppress]]` entry (called by `Config::validate`).
pub fn check_rule(rule: &SuppressRule) -> Result<(), String> {
    if rule.reason.trim().is_empty() {
        return Err("`reason` is required: say why the report is not a bug".into());
    }
    if rule.file.is_none()
        && rule.function.is_none()
        && rule.variable.is_none()
        && rule.probe.is_none()
    {
        return Err(
            "give at least one of `file`, `function`, `variable`, `probe` (an entry with none \
             would suppress every report)"
                .into(),
        );
    }
    if let Some(p) = &rule.probe
        && !PROBE_KINDS.contains(&p.as_str())
    {
        return Err(format!(
            "`{p}` is not a probe kind (one of {})",
            PROBE_KINDS.join(", ")
        ));
    }
    if let Some(v) = &rule.verdict
        && v != "leak"
        && v != "unproved"
    {
        return Err(format!("verdict `{v}` is not `leak` or `unproved`"));
    }
    for (field, value) in [
        ("file", &rule.file),
        ("function", &rule.function),
        ("variable", &rule.variable),
    ] {
        if let Some(v) = value {
            if v.is_empty() {
                return Err(format!("`{field}` is empty"));
            }
            glob(v, field)?;
        }
    }
    Ok(())
}

/// Which verdicts a suppression silences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kinds {
    pub leak: bool,
    pub unproved: bool,
}

impl Kinds {
    fn covers(self, v: VerdictKind) -> bool {
        match v {
            VerdictKind::Leak => self.leak,
            VerdictKind::Unproved => self.unproved,
            VerdictKind::Proved => false,
        }
    }
}

/// A `reductio-ignore` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inline {
    /// 1-based line of the comment.
    pub line: u32,
    pub kinds: Kinds,
    pub reason: String,
    /// The comment is alone on its line, so it also covers the next line.
    pub own_line: bool,
}

impl Inline {
    fn covers(&self, f: &Finding) -> bool {
        self.kinds.covers(f.verdict)
            && (f.loc.line == self.line || (self.own_line && f.loc.line == self.line + 1))
    }
}

/// A malformed suppression comment: reported, never applied (the report stays visible).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineError {
    pub line: u32,
    pub message: String,
}

/// The `reductio-ignore` comments of a file's text, and the malformed ones.
pub fn parse_inline(text: &str) -> (Vec<Inline>, Vec<InlineError>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(at) = line.find(DIRECTIVE) else {
            continue;
        };
        let before = line[..at].trim_end();
        let block = before.ends_with("/*");
        if !block && !before.ends_with("//") {
            continue;
        }
        let code = before.trim_end_matches(['/', '*', '!']).trim();
        let line_no = i as u32 + 1;
        let mut rest = &line[at + DIRECTIVE.len()..];
        if block && let Some(end) = rest.find("*/") {
            rest = &rest[..end];
        }
        match parse_body(rest) {
            Ok((kinds, reason)) => found.push(Inline {
                line: line_no,
                kinds,
                reason,
                own_line: code.is_empty(),
            }),
            Err(message) => errors.push(InlineError {
                line: line_no,
                message,
            }),
        }
    }
    (found, errors)
}

fn parse_body(rest: &str) -> Result<(Kinds, String), String> {
    const SHAPE: &str = "write `reductio-ignore: leak -- reason` (kinds: leak, unproved, all)";
    let rest = rest
        .trim_start()
        .strip_prefix(':')
        .ok_or_else(|| format!("expected `:` after `{DIRECTIVE}`: {SHAPE}"))?;
    let (kinds_text, reason) = rest
        .split_once("--")
        .ok_or_else(|| format!("a suppression needs a reason after `--`: {SHAPE}"))?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(format!("a suppression needs a reason after `--`: {SHAPE}"));
    }
    let mut kinds = Kinds {
        leak: false,
        unproved: false,
    };
    let mut any = false;
    for k in kinds_text.split([',', ' ', '\t']).filter(|k| !k.is_empty()) {
        any = true;
        match k {
            "leak" => kinds.leak = true,
            "unproved" => kinds.unproved = true,
            "all" => {
                kinds.leak = true;
                kinds.unproved = true;
            }
            other => return Err(format!("unknown kind `{other}`: {SHAPE}")),
        }
    }
    if !any {
        return Err(format!("no kind before `--`: {SHAPE}"));
    }
    Ok((kinds, reason.to_string()))
}

struct Rule {
    file: Option<GlobMatcher>,
    function: Option<GlobMatcher>,
    variable: Option<GlobMatcher>,
    probe: Option<String>,
    kinds: Kinds,
    reason: String,
}

impl Rule {
    fn new(r: &SuppressRule) -> Option<Rule> {
        check_rule(r).ok()?;
        let g = |v: &Option<String>, what| -> Option<Option<GlobMatcher>> {
            match v {
                None => Some(None),
                Some(p) => glob(p, what).ok().map(Some),
            }
        };
        Some(Rule {
            file: g(&r.file, "file")?,
            function: g(&r.function, "function")?,
            variable: g(&r.variable, "variable")?,
            probe: r.probe.clone(),
            kinds: Kinds {
                leak: r.verdict.as_deref() != Some("unproved"),
                unproved: r.verdict.as_deref() != Some("leak"),
            },
            reason: r.reason.trim().to_string(),
        })
    }

    fn matches(&self, f: &Finding) -> bool {
        self.kinds.covers(f.verdict)
            && self.probe.as_deref().is_none_or(|p| p == f.probe.as_str())
            && self
                .function
                .as_ref()
                .is_none_or(|g| g.is_match(&f.loc.function))
            && self
                .variable
                .as_ref()
                .is_none_or(|g| g.is_match(&f.variable))
            && self
                .file
                .as_ref()
                .is_none_or(|g| file_matches(g, &f.loc.file))
    }
}

/// The path and each of its trailing sub-paths (`a/b/c.c`, `b/c.c`, `c.c`), `./` dropped.
fn file_matches(g: &GlobMatcher, path: &Path) -> bool {
    let s = crate::fingerprint::path_key(path);
    let mut t = s.as_str();
    loop {
        if g.is_match(t) {
            return true;
        }
        match t.find('/') {
            Some(i) => t = &t[i + 1..],
            None => return false,
        }
    }
}

/// Where a suppression was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// A `reductio-ignore` comment (1-based line).
    Comment { file: PathBuf, line: u32 },
    /// The n-th (1-based) `[[suppress]]` entry of the configuration.
    Config { entry: usize },
}

/// Why a report is suppressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub reason: String,
    pub source: Source,
}

/// A run's suppressions (comments of the loaded files and the configuration's entries), and
/// which of them matched a report.
pub struct Suppressions {
    comments: HashMap<PathBuf, Vec<Inline>>,
    rules: Vec<Rule>,
    used: BTreeSet<Source>,
    /// Files in the order they were added (for a deterministic unused list).
    order: Vec<PathBuf>,
}

impl Suppressions {
    /// The configuration's entries (invalid ones, which `Config` rejects, are skipped).
    pub fn new(rules: &[SuppressRule]) -> Self {
        Suppressions {
            comments: HashMap::new(),
            rules: rules.iter().filter_map(Rule::new).collect(),
            used: BTreeSet::new(),
            order: Vec::new(),
        }
    }

    /// Read a file's comments; returns the malformed ones.
    pub fn add_file(&mut self, path: &Path, text: &str) -> Vec<InlineError> {
        let (found, errors) = parse_inline(text);
        if !self.comments.contains_key(path) {
            self.order.push(path.to_path_buf());
        }
        self.comments.insert(path.to_path_buf(), found);
        errors
    }

    /// The suppression of a report, if any (a comment first, then the first matching entry),
    /// recorded as used.
    pub fn check(&mut self, f: &Finding) -> Option<Suppression> {
        if f.verdict == VerdictKind::Proved {
            return None;
        }
        let s = self.find(f)?;
        self.used.insert(s.source.clone());
        Some(s)
    }

    fn find(&self, f: &Finding) -> Option<Suppression> {
        if let Some(c) = self
            .comments
            .get(&f.loc.file)
            .and_then(|cs| cs.iter().find(|c| c.covers(f)))
        {
            return Some(Suppression {
                reason: c.reason.clone(),
                source: Source::Comment {
                    file: f.loc.file.clone(),
                    line: c.line,
                },
            });
        }
        let (i, r) = self.rules.iter().enumerate().find(|(_, r)| r.matches(f))?;
        Some(Suppression {
            reason: r.reason.clone(),
            source: Source::Config { entry: i + 1 },
        })
    }

    /// The suppressions that matched no report: comments in file and line order, then the
    /// configuration's entries.
    pub fn unused(&self) -> Vec<Suppression> {
        let mut out = Vec::new();
        for file in &self.order {
            for c in self.comments.get(file).into_iter().flatten() {
                let source = Source::Comment {
                    file: file.clone(),
                    line: c.line,
                };
                if !self.used.contains(&source) {
                    out.push(Suppression {
                        reason: c.reason.clone(),
                        source,
                    });
                }
            }
        }
        for (i, r) in self.rules.iter().enumerate() {
            let source = Source::Config { entry: i + 1 };
            if !self.used.contains(&source) {
                out.push(Suppression {
                    reason: r.reason.clone(),
                    source,
                });
            }
        }
        out
    }
}

/// The edit of "Suppress this leak report": a `reductio-ignore` comment on its own line above
/// the line of byte `at`, with that line's indentation and line ending. `None` where a line
/// cannot be inserted safely (the line above continues a macro with `\`).
pub fn comment_edit(text: &str, at: u32) -> Option<(TextRange, String)> {
    let at = (at as usize).min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    if start > 0 {
        let above = text[..start - 1].trim_end_matches('\r');
        if above.ends_with('\\') {
            return None;
        }
    }
    let line = &text[start..];
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let new = format!("{indent}// {DIRECTIVE}: leak -- TODO: say why this is not a leak{eol}");
    Some((TextRange::new(start as u32, start as u32), new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_parse_with_their_kinds_reason_and_placement() {
        let text = "int x;\n  // reductio-ignore: leak -- freed at exit\n  p = q; /* reductio-ignore: unproved, leak -- pool */\n// reductio-ignore: all -- both\n";
        let (found, errors) = parse_inline(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(found.len(), 3);
        assert_eq!(
            (found[0].line, found[0].own_line, found[0].reason.as_str()),
            (2, true, "freed at exit")
        );
        assert!(found[0].kinds.leak && !found[0].kinds.unproved);
        assert_eq!((found[1].line, found[1].own_line), (3, false));
        assert_eq!(found[1].reason, "pool");
        assert!(found[1].kinds.leak && found[1].kinds.unproved);
        assert!(found[2].kinds.leak && found[2].kinds.unproved);
    }

    #[test]
    fn malformed_comments_are_errors_and_strings_are_not_comments() {
        let text = "// reductio-ignore: leak\n// reductio-ignore leak -- x\n// reductio-ignore: lek -- x\n// reductio-ignore: -- x\nputs(\"reductio-ignore: leak -- no\");\n";
        let (found, errors) = parse_inline(text);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            errors.iter().map(|e| e.line).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        assert!(errors[0].message.contains("reason"));
        assert!(errors[2].message.contains("lek"));
    }

    #[test]
    fn the_edit_inserts_an_indented_comment_line_above() {
        let text = "void f(void) {\n    p = malloc(1);\n}\n";
        let at = text.find("p =").unwrap() as u32;
        let (range, new) = comment_edit(text, at).unwrap();
        let mut out = text.to_string();
        out.insert_str(range.start as usize, &new);
        assert_eq!(
            out,
            "void f(void) {\n    // reductio-ignore: leak -- TODO: say why this is not a leak\n    p = malloc(1);\n}\n"
        );
        // The inserted comment parses, alone on its line, covering the next one.
        let (found, errors) = parse_inline(&out);
        assert!(errors.is_empty());
        assert_eq!((found[0].line, found[0].own_line), (2, true));
        // CRLF files keep CRLF.
        let crlf = "f() {\r\n\tp = q;\r\n}\r\n";
        let (_, new) = comment_edit(crlf, crlf.find("p =").unwrap() as u32).unwrap();
        assert!(new.starts_with("\t//") && new.ends_with("\r\n"));
        // Never inside a macro continued with a backslash.
        let mac = "#define M \\\n  p = malloc(1)\n";
        assert!(comment_edit(mac, mac.find("p =").unwrap() as u32).is_none());
    }

    #[test]
    fn file_globs_match_trailing_sub_paths() {
        let g = glob("src/*.c", "file").unwrap();
        assert!(file_matches(&g, Path::new("./src/a.c")));
        assert!(file_matches(&g, Path::new("/home/me/p/src/a.c")));
        assert!(!file_matches(&g, Path::new("src/sub/a.c")));
        let g = glob("vendor/**", "file").unwrap();
        assert!(file_matches(&g, Path::new("x/vendor/z/a.c")));
    }
}
