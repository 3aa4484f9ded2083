//! Macro definitions and the table of what is defined at a point: `#define`/`#undef` seen in a
//! file and the headers it reaches, plus `-D`/`-U` from the build description.
//!
//! Knowledge is three-valued, because the build model is usually incomplete (no compile
//! database, compiler-predefined macros not modelled): a name is `Defined`, `Undefined` (known
//! absent: `-U`, `#undef`, or a build description says the flags are complete), or `Unknown`.
//! A definition seen only in a conditional arm the scanner could not decide is `uncertain`.

use super::directive::{self, DirectiveKind};
use super::lex::{TokKind, lex_span};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// One token of a replacement list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BodyToken {
    pub kind: TokKind,
    pub text: String,
    pub space_before: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MacroDef {
    pub name: String,
    /// `None` for an object-like macro. A variadic macro's last parameter is `__VA_ARGS__`
    /// (or the GNU named form, `args...`, keeps its name).
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: Vec<BodyToken>,
    /// Defined in a conditional arm whose liveness is unknown.
    pub uncertain: bool,
}

impl MacroDef {
    pub fn is_function_like(&self) -> bool {
        self.params.is_some()
    }

    /// An object-like macro from a `-D NAME=VALUE` flag (`-D NAME` means `1`).
    pub fn object(name: &str, value: &str) -> MacroDef {
        let text = format!("#define {name} {value}");
        parse_define_text(&text).unwrap_or_else(|| MacroDef {
            name: name.to_string(),
            params: None,
            variadic: false,
            body: Vec::new(),
            uncertain: false,
        })
    }
}

/// Parses a whole `#define` directive line; `None` if it is not a well-formed definition.
pub fn parse_define_text(line: &str) -> Option<MacroDef> {
    let d = directive::parse(line, 0..line.len());
    (d.kind == DirectiveKind::Define).then_some(())?;
    parse_define(line, &d)
}

/// Builds the definition from a parsed `#define` directive of `text`.
pub fn parse_define(text: &str, d: &directive::Directive) -> Option<MacroDef> {
    let ops = &d.operands;
    let name_tok = ops.first().filter(|t| t.kind == TokKind::Ident)?;
    let name = text[name_tok.range.clone()].to_string();
    if name == "defined" {
        return None;
    }
    let mut i = 1;
    let mut params = None;
    let mut variadic = false;
    // Function-like only when `(` touches the name.
    if let Some(t) = ops.get(1)
        && &text[t.range.clone()] == "("
        && !t.space_before
    {
        let mut ps = Vec::new();
        i = 2;
        loop {
            let t = ops.get(i)?;
            let s = &text[t.range.clone()];
            i += 1;
            match (t.kind, s) {
                (TokKind::Punct, ")") if ps.is_empty() && !variadic => break,
                (TokKind::Ident, _) if !variadic => {
                    ps.push(s.to_string());
                    let n = ops.get(i)?;
                    let ns = &text[n.range.clone()];
                    i += 1;
                    match ns {
                        "," => {}
                        ")" => break,
                        "..." => {
                            variadic = true;
                            if &text[ops.get(i)?.range.clone()] != ")" {
                                return None;
                            }
                            i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
                (TokKind::Punct, "...") if !variadic => {
                    ps.push("__VA_ARGS__".to_string());
                    variadic = true;
                    if &text[ops.get(i)?.range.clone()] != ")" {
                        return None;
                    }
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
        params = Some(ps);
    }
    let body = ops[i.min(ops.len())..]
        .iter()
        .enumerate()
        .map(|(k, t)| BodyToken {
            kind: t.kind,
            text: text[t.range.clone()].to_string(),
            space_before: k > 0 && t.space_before,
        })
        .collect();
    Some(MacroDef {
        name,
        params,
        variadic,
        body,
        uncertain: false,
    })
}

/// A `#define` parsed once, as a certain definition and as one seen in an undecided arm.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedDef {
    pub certain: Arc<MacroDef>,
    pub uncertain: Arc<MacroDef>,
}

impl SharedDef {
    pub fn new(def: MacroDef) -> SharedDef {
        let mut u = def.clone();
        u.uncertain = true;
        let mut c = def;
        c.uncertain = false;
        SharedDef {
            certain: Arc::new(c),
            uncertain: Arc::new(u),
        }
    }
}

/// What is known about one name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacroStatus {
    Defined,
    /// Defined only in a conditional arm that may or may not be live.
    MaybeDefined,
    Undefined,
    Unknown,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacroTable {
    defs: FxHashMap<String, Arc<MacroDef>>,
    /// Names known not to be defined (`-U`, a certain `#undef`).
    undefined: FxHashSet<String>,
    /// When the build description is known complete (a compile database entry for the file),
    /// a name never defined is undefined, as C says, except reserved names (`__x`, `_X`),
    /// which the compiler predefines and this model does not know.
    pub complete: bool,
}

impl MacroTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a definition.
    pub fn define(&mut self, def: MacroDef) {
        self.undefined.remove(&def.name);
        self.defs.insert(def.name.clone(), Arc::new(def));
    }

    /// Adds a definition parsed once and shared (see [`super::scan::DirectiveIndex`]); like
    /// [`MacroTable::apply_directive`] for a `#define`. `def` comes in both spellings, so
    /// that no table copies a definition: certain, and marked uncertain.
    pub fn define_shared(&mut self, def: &SharedDef, certain: bool) {
        let name = &def.certain.name;
        let uncertain = !certain
            && !self
                .get(name)
                .is_some_and(|old| !old.uncertain && old.body == def.certain.body);
        if !self.undefined.is_empty() {
            self.undefined.remove(name);
        }
        let shared = if uncertain {
            def.uncertain.clone()
        } else {
            def.certain.clone()
        };
        match self.defs.get_mut(name.as_str()) {
            Some(slot) => *slot = shared,
            None => {
                self.defs.insert(name.clone(), shared);
            }
        }
    }

    /// Room for `n` more definitions (a header about to be walked).
    pub fn reserve(&mut self, n: usize) {
        self.defs.reserve(n);
    }

    /// The part of this table `text` can reach: the macros named in it, and those named in
    /// their bodies, transitively. Expanding `text` with it gives the same result, and a
    /// translation unit's table shrinks from every macro of its headers to the few it uses.
    pub fn reachable_from(&self, text: &str) -> MacroTable {
        let mut out = MacroTable {
            complete: self.complete,
            ..Default::default()
        };
        let mut want: Vec<String> = super::lex::lex(text)
            .into_iter()
            .filter(|t| t.kind == TokKind::Ident)
            .map(|t| text[t.range].to_string())
            .collect();
        let mut seen: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
        while let Some(name) = want.pop() {
            if seen.contains(&name) {
                continue;
            }
            if let Some(d) = self.defs.get(&name) {
                for t in &d.body {
                    if t.kind == TokKind::Ident && !seen.contains(&t.text) {
                        want.push(t.text.clone());
                    }
                }
                out.defs.insert(name.clone(), d.clone());
            } else if self.undefined.contains(&name) {
                out.undefined.insert(name.clone());
            }
            seen.insert(name);
        }
        out
    }

    /// Keeps only the definitions `keep` accepts (a name dropped is simply not a macro here:
    /// neither defined nor undefined).
    pub fn retain(&mut self, keep: impl Fn(&MacroDef) -> bool) {
        self.defs.retain(|_, d| keep(d));
    }

    /// `#undef`; an uncertain one (in an undecided arm) leaves the name maybe-defined.
    pub fn undef(&mut self, name: &str, certain: bool) {
        if certain {
            self.defs.remove(name);
            self.undefined.insert(name.to_string());
        } else if let Some(d) = self.defs.get_mut(name) {
            Arc::make_mut(d).uncertain = true;
        }
    }

    /// Adds `other`'s definitions of the names this table neither defines nor knows
    /// undefined (a header read on its own takes what its includer defines around it).
    pub fn fill_from(&mut self, other: &MacroTable) {
        for (name, d) in &other.defs {
            if !self.defs.contains_key(name) && !self.undefined.contains(name) {
                self.defs.insert(name.clone(), d.clone());
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&MacroDef> {
        self.defs.get(name).map(|d| &**d)
    }

    /// The shared definition (cheap to clone).
    pub fn get_arc(&self, name: &str) -> Option<Arc<MacroDef>> {
        self.defs.get(name).cloned()
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &MacroDef> {
        self.defs.values().map(|d| &**d)
    }

    pub fn status(&self, name: &str) -> MacroStatus {
        match self.defs.get(name) {
            Some(d) if d.uncertain => MacroStatus::MaybeDefined,
            Some(_) => MacroStatus::Defined,
            None if self.undefined.contains(name) => MacroStatus::Undefined,
            None if self.complete && !is_reserved(name) => MacroStatus::Undefined,
            None => MacroStatus::Unknown,
        }
    }

    /// Records every `#define` / `#undef` of `text` in order, ignoring conditionals (see
    /// [`super::scan`] for the walk that honours them and follows includes).
    pub fn add_definitions_from(&mut self, text: &str) {
        for t in super::lex::lex(text) {
            if t.kind != TokKind::Directive {
                continue;
            }
            let d = directive::parse(text, t.range.clone());
            self.apply_directive(text, &d, true);
        }
    }

    /// Applies a `#define` or `#undef` (others are ignored). `certain` is false in an arm whose
    /// liveness is unknown.
    pub fn apply_directive(&mut self, text: &str, d: &directive::Directive, certain: bool) {
        match d.kind {
            DirectiveKind::Define => {
                if let Some(mut def) = parse_define(text, d) {
                    if !certain {
                        // A redefinition identical to a certain one stays certain.
                        let same = self
                            .get(&def.name)
                            .is_some_and(|old| !old.uncertain && old.body == def.body);
                        def.uncertain = !same;
                    }
                    self.define(def);
                }
            }
            DirectiveKind::Undef => {
                if let Some(t) = d.operands.first().filter(|t| t.kind == TokKind::Ident) {
                    self.undef(&text[t.range.clone()], certain);
                }
            }
            _ => {}
        }
    }

    /// `-D NAME[=VALUE]` (value `1` when absent), as the driver does.
    pub fn define_flag(&mut self, spec: &str) {
        let (name, value) = match spec.split_once('=') {
            Some((n, v)) => (n, v),
            None => (spec, "1"),
        };
        // `-D'F(x)=x'` defines a function-like macro.
        let text = format!("#define {name} {value}");
        if let Some(def) = parse_define_text(&text) {
            self.define(def);
        }
    }

    /// The table the flags start a translation unit with.
    pub fn from_flags(flags: &super::compile_db::CompileFlags) -> Self {
        let mut t = MacroTable {
            complete: flags.complete,
            ..Default::default()
        };
        for d in &flags.defines {
            t.define_flag(d);
        }
        for u in &flags.undefines {
            t.undef(u, true);
        }
        t
    }
}

/// Identifiers reserved to the implementation (C11 §7.1.3): the compiler's predefined macros
/// (`__GNUC__`, `_WIN32`, `__x86_64__`) all look like this.
pub fn is_reserved(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 2 && b[0] == b'_' && (b[1] == b'_' || b[1].is_ascii_uppercase())
}

/// Tokens of a replacement list, lexed from a standalone string (for tests and flags).
pub fn body_tokens(s: &str) -> Vec<BodyToken> {
    lex_span(s, 0..s.len(), false)
        .into_iter()
        .enumerate()
        .map(|(k, t)| BodyToken {
            kind: t.kind,
            text: s[t.range].to_string(),
            space_before: k > 0 && t.space_before,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(d: &MacroDef) -> Vec<&str> {
        d.body.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn object_and_function_like() {
        let d = parse_define_text("#define FATAL(m) abort()").unwrap();
        assert_eq!(d.params, Some(vec!["m".to_string()]));
        assert_eq!(body(&d), ["abort", "(", ")"]);
        let d = parse_define_text("#define NOT_FN (x) + 1").unwrap();
        assert_eq!(d.params, None);
        assert_eq!(body(&d), ["(", "x", ")", "+", "1"]);
        let d = parse_define_text("#define E()").unwrap();
        assert_eq!(d.params, Some(vec![]));
        assert!(d.body.is_empty());
    }

    #[test]
    fn variadic_forms() {
        let d = parse_define_text("#define LOG(fmt, ...) f(fmt, __VA_ARGS__)").unwrap();
        assert!(d.variadic);
        assert_eq!(d.params.as_ref().unwrap()[1], "__VA_ARGS__");
        let d = parse_define_text("#define LOG(fmt, args...) f(fmt, ##args)").unwrap();
        assert!(d.variadic);
        assert_eq!(d.params.as_ref().unwrap()[1], "args");
    }

    #[test]
    fn malformed_definitions_are_ignored() {
        for bad in [
            "#define",
            "#define 1 2",
            "#define F(a b) x",
            "#define F(a,",
            "#define F(..., a) x",
            "#define defined 1",
        ] {
            assert_eq!(parse_define_text(bad), None, "{bad}");
        }
    }

    #[test]
    fn table_knowledge_is_three_valued() {
        let mut t = MacroTable::new();
        t.add_definitions_from("#define A 1\n#define B 2\n#undef B\n");
        assert_eq!(t.status("A"), MacroStatus::Defined);
        assert_eq!(t.status("B"), MacroStatus::Undefined);
        assert_eq!(t.status("C"), MacroStatus::Unknown);
        t.complete = true;
        assert_eq!(t.status("C"), MacroStatus::Undefined);
        assert_eq!(t.status("__GNUC__"), MacroStatus::Unknown);
        assert_eq!(t.status("_WIN32"), MacroStatus::Unknown);
        t.define_flag("DEBUG");
        assert_eq!(body(t.get("DEBUG").unwrap()), ["1"]);
        t.define_flag("SQ(x)=((x)*(x))");
        assert!(t.get("SQ").unwrap().is_function_like());
    }
}
