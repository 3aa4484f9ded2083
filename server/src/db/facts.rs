//! What the analysis assumes about a function, with the reason for each assumption: the text
//! of `reductio facts` and of hover on a call.
//!
//! Nothing here is a separate inference. Each fact is read from what the engine itself reads
//! at a call: the library model the lowering turns calls into allocations and frees with
//! (`library_model`: the C library plus the configured `allocators`, `deallocators` and
//! `noreturn`), [`never_returns_of`] (a call of such a function ends the path), and the
//! transitive MOD summary [`mod_of`] (what a call the engine does not follow may write and
//! free). For a callee without a body, the engine's rule for body-less calls is stated
//! (`probe::engine::calls::bodyless_call`).

use super::database::Db;
use super::front_end::{Function, library_model, parsed};
use super::inputs::SourceFile;
use super::names::function_ids;
use super::names::{all_functions, resolve_function};
use super::positions::function_anchor;
use super::whole_program::{captured_params, mod_of, never_returns_of, nonnull_params_of};
use crate::ir::library::{AllocKind, Returns, is_noreturn, known_function};
use crate::probe::NeverReturns;
use crate::syntax::TextRange;
use std::path::PathBuf;

/// One assumption about a function: a stable `kind`, the assumption in words and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// `allocator`, `reallocator`, `deallocator`, `never-returns`, `writes-nothing-old`,
    /// `writes`, `writes-anything`, `frees`, `allocates`, `stores-argument`,
    /// `keeps-no-copy`, `library`, `unknown`.
    pub kind: &'static str,
    pub fact: String,
    pub reason: String,
}

/// One fact about one of the workspace's functions, for `reductio facts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionFact {
    pub file: PathBuf,
    /// 1-based line of the function's start.
    pub line: u32,
    pub function: String,
    pub kind: &'static str,
    pub fact: String,
    pub reason: String,
}

/// What is assumed at a call of `name` from a file: its body's place when the workspace has
/// one, and the facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalleeFacts {
    pub name: String,
    /// The file and 1-based line of the body the call reaches, if any.
    pub body: Option<(PathBuf, u32)>,
    pub facts: Vec<Fact>,
}

/// A direct call under a position: the callee's name and the call's byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallAt {
    pub callee: String,
    pub range: TextRange,
}

fn fact(kind: &'static str, fact: impl Into<String>, reason: impl Into<String>) -> Fact {
    Fact {
        kind,
        fact: fact.into(),
        reason: reason.into(),
    }
}

/// At most this many locations are named in a `writes` fact.
const MAX_NAMED_WRITES: usize = 8;

/// What the library model says about calls of `name`, before any body is considered: the
/// lowering turns a call of an allocator or deallocator into an allocation or a free, so
/// these facts hold whether or not the workspace has a body for `name`.
fn model_facts(db: &dyn Db, name: &str) -> Vec<Fact> {
    let lib = library_model(db, db.settings());
    let config = db.settings().config(db);
    let by = |configured: bool, key: &str| {
        if configured {
            format!(
                "listed in `{key}` (configuration); its calls are modelled, its body is not followed"
            )
        } else {
            "the C library model; its calls are modelled, not followed".to_string()
        }
    };
    let mut out = Vec::new();
    if let Some(k) = lib.allocators.get(name) {
        let reason = by(config.allocators.iter().any(|a| a == name), "allocators");
        out.push(match k {
            AllocKind::Returns => fact("allocator", "returns fresh memory or NULL", reason),
            AllocKind::Realloc { ptr_arg } => fact(
                "reallocator",
                format!(
                    "returns fresh memory and frees its argument {} on success; on failure returns NULL and the old block stays",
                    ptr_arg + 1
                ),
                reason,
            ),
            AllocKind::OutParam {
                arg,
                success,
                failure,
            } => fact(
                "allocator",
                format!(
                    "stores fresh memory through its argument {}{}; on failure returns {} and stores nothing",
                    arg + 1,
                    success.map(|s| format!(" and returns {s}")).unwrap_or_default(),
                    failure.map_or_else(|| "a nonzero code".to_string(), |f| f.to_string())
                ),
                reason,
            ),
            AllocKind::ReallocThrough { arg, size_arg } => fact(
                "reallocator",
                format!(
                    "stores fresh memory through its argument {} (freeing the block it pointed to) or leaves it, whatever it returns, and writes a size through its argument {}",
                    arg + 1,
                    size_arg + 1
                ),
                reason,
            ),
        });
    } else if let Some(&i) = lib.deallocators.get(name) {
        let reason = by(
            config.deallocators.iter().any(|d| d == name),
            "deallocators",
        );
        out.push(fact(
            "deallocator",
            format!("frees its argument {}", i + 1),
            reason,
        ));
    }
    out
}

/// The facts the analysis uses about one of the workspace's functions.
pub fn facts_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Vec<Fact> {
    let name = f.name(db);
    let modelled = model_facts(db, name);
    if !modelled.is_empty() {
        // Its calls never reach the body: nothing else about it is used.
        return modelled;
    }
    let mut out = Vec::new();
    if let Some(why) = never_returns_of(db, f) {
        let reason = match why {
            NeverReturns::Calls(s) => {
                format!("every path from its entry ends in a call of `{s}`, which does not return")
            }
            NeverReturns::Loops => {
                "no path from its entry reaches a return (it loops forever)".to_string()
            }
            NeverReturns::Configured => "listed in `noreturn` (configuration)".to_string(),
        };
        out.push(fact("never-returns", "never returns", reason));
        // A call of it ends the path: its writes are never read.
        return out;
    }
    let ms = mod_of(db, f);
    const SUMMARY: &str = "its MOD summary over its own statements and its callees', used where a call is not followed";
    if ms.all {
        out.push(fact(
            "writes-anything",
            "may write any memory",
            "it or a callee makes an indirect call or has code the analysis does not model; a call of it that may touch a probe's cell is followed, or else gives up on that cell",
        ));
    } else if !ms.writes_old {
        out.push(fact(
            "writes-nothing-old",
            "changes no memory that existed before the call",
            format!(
                "it writes only its own variables and blocks it allocated itself, so a call of it keeps every cell ({SUMMARY})"
            ),
        ));
    } else {
        let mut named: Vec<String> = ms.globals.iter().map(|g| format!("`{g}`")).collect();
        named.extend(ms.fields.iter().map(|(c, fl)| format!("`{fl}` of `{c}`")));
        named.extend(ms.mems.iter().map(|c| format!("memory of type `{c}`")));
        let more = named.len().saturating_sub(MAX_NAMED_WRITES);
        named.truncate(MAX_NAMED_WRITES);
        let mut what = if named.is_empty() {
            "may write memory that existed before the call".to_string()
        } else {
            format!("may write {}", named.join(", "))
        };
        if more > 0 {
            what.push_str(&format!(" and {more} more"));
        }
        if ms.generic_slots {
            what.push_str(
                ", and through `void **` the pointer its pointer-to-pointer arguments point to",
            );
        }
        out.push(fact("writes", what, SUMMARY));
    }
    for class in &ms.frees {
        out.push(fact(
            "frees",
            format!("may free blocks of type `{class}`"),
            "a free of a `{class} *` in it or a callee: a call of it is followed when a probe's cell has this type"
                .replace("{class}", class),
        ));
    }
    if ms.allocates {
        out.push(fact(
            "allocates",
            "may allocate",
            "an allocation in it or a callee: a cell found changed after an unfollowed call may have been made inside it",
        ));
    }
    out.extend(argument_facts(db, f));
    out
}

/// Which pointer arguments a function may keep a copy of (`regions::capture`): stored into
/// memory, returned, or handed to a function that keeps it.
fn argument_facts<'db>(db: &'db dyn Db, f: Function<'db>) -> Vec<Fact> {
    let ws = db.workspace();
    let Some(&i) = function_ids(db, ws).get(&f) else {
        return vec![];
    };
    let table = captured_params(db, ws);
    let Some(kept) = table.get(i as usize) else {
        return vec![];
    };
    let ir = super::front_end::body(db, f);
    let nonnull = nonnull_params_of(db, f);
    let mut out = Vec::new();
    for (k, (&p, &keeps)) in ir.params.iter().zip(kept).enumerate() {
        let l = ir.local(p);
        if !l.ty.is_pointer_like() {
            continue;
        }
        if nonnull.get(k).copied().unwrap_or(false) {
            out.push(fact(
                "nonnull-argument",
                format!("every known call passes a non-NULL argument {} (`{}`)", k + 1, l.name),
                "each call site passes an address (`&x`, `&p->f`, a string, an array) or a parameter of its own function that it never changes and that is non-NULL at every call in turn: a path that needs it NULL on entry is taken by no caller",
            ));
        }
        out.push(if keeps {
            fact(
                "stores-argument",
                format!("may keep a copy of argument {} (`{}`)", k + 1, l.name),
                "it or a callee stores the pointer into memory, returns it, or hands it to code that may",
            )
        } else {
            fact(
                "keeps-no-copy",
                format!("keeps no copy of argument {} (`{}`)", k + 1, l.name),
                "it and its callees only read and write through the pointer, compare or free it: the address of a caller's local passed there never reaches memory",
            )
        });
    }
    out
}

/// Every fact about the workspace's functions, in file and source order.
pub fn function_facts(db: &dyn Db) -> Vec<FunctionFact> {
    let ws = db.workspace();
    let mut out: Vec<FunctionFact> = Vec::new();
    for f in all_functions(db, ws) {
        let file = f.file(db).path(db).clone();
        let line = function_anchor(db, *f).line + 1;
        for x in facts_of(db, *f) {
            out.push(FunctionFact {
                file: file.clone(),
                line,
                function: f.name(db).clone(),
                kind: x.kind,
                fact: x.fact,
                reason: x.reason,
            });
        }
    }
    // What the program's headers declare (the build model reads the attributes), for the
    // functions whose declaration is all there is or whose body says less.
    let never_found: rustc_hash::FxHashSet<String> = out
        .iter()
        .filter(|f| f.kind == "never-returns")
        .map(|f| f.function.clone())
        .collect();
    let defined = super::front_end::defined_names(db, ws);
    for (name, d) in super::build::declared_attributes(db, ws).iter() {
        let file = d.file.path(db).clone();
        let line = declaration_line(d.file.text(db), name);
        let shown = file.display().to_string();
        let mut push = |kind: &'static str, fact: &str, function: &str, reason: String| {
            out.push(FunctionFact {
                file: file.clone(),
                line,
                function: function.to_string(),
                kind,
                fact: fact.to_string(),
                reason,
            })
        };
        let a = &d.attributes;
        if a.noreturn && !never_found.contains(name.as_str()) {
            push(
                "never-returns",
                "never returns",
                name,
                format!("declared noreturn in {shown}"),
            );
        }
        if a.malloc {
            let reason = if defined.contains(name.as_str()) {
                format!(
                    "declared `__attribute__((malloc))` in {shown}; its body is followed, which also says what the new block holds"
                )
            } else {
                format!("declared `__attribute__((malloc))` in {shown}: returns fresh memory")
            };
            push("allocator", "allocator", name, reason);
        }
        for (dealloc, i) in &a.deallocators {
            let reason = if defined.contains(dealloc.as_str()) {
                format!(
                    "`{name}` is declared `__attribute__((malloc({dealloc}, {i})))` in {shown}; \
                     the body of `{dealloc}` is followed, which says when it really frees"
                )
            } else {
                format!(
                    "`{name}` is declared `__attribute__((malloc({dealloc}, {i})))` in {shown}: \
                     `{dealloc}` frees argument {i}"
                )
            };
            push("deallocator", "deallocator", dealloc, reason);
        }
        if a.returns_nonnull {
            push(
                "returns-nonnull",
                "never returns NULL",
                name,
                format!(
                    "declared `__attribute__((returns_nonnull))` in {shown}: a NULL check of \
                     its result is never true"
                ),
            );
        }
        if let Some(positions) = &a.nonnull {
            let which = if positions.is_empty() {
                "every pointer argument".to_string()
            } else {
                let list: Vec<String> = positions.iter().map(u32::to_string).collect();
                format!("argument {}", list.join(", "))
            };
            push(
                "nonnull",
                "never passed NULL",
                name,
                format!(
                    "declared `__attribute__((nonnull))` in {shown}: callers never pass NULL \
                     as {which}, so its body starts with them non-null"
                ),
            );
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// 1-based line of the first `name(` or `name (` in `text` at a word boundary (1 if none).
fn declaration_line(text: &str, name: &str) -> u32 {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(name) {
        let at = from + k;
        let end = at + name.len();
        let word = |i: usize| b[i].is_ascii_alphanumeric() || b[i] == b'_';
        let before_ok = at == 0 || !word(at - 1);
        let rest = text[end..].trim_start_matches([' ', '\t']);
        if before_ok && rest.starts_with('(') {
            return text[..at].matches('\n').count() as u32 + 1;
        }
        from = end;
    }
    1
}

/// What is assumed at a call of `name` from `file`: the facts of the body it reaches, or the
/// library model's, or the rule for a function whose body is not seen.
pub fn callee_facts(db: &dyn Db, file: SourceFile, name: &str) -> CalleeFacts {
    let lib = library_model(db, db.settings());
    let modelled = model_facts(db, name);
    let target = resolve_function(db, file, name);
    let body = target.map(|g| (g.file(db).path(db).clone(), function_anchor(db, g).line + 1));
    let facts = if !modelled.is_empty() {
        modelled
    } else if let Some(g) = target {
        facts_of(db, g)
    } else if lib.never_returns(name) {
        let reason = if is_noreturn(name) {
            "the C library model"
        } else {
            "listed in `noreturn` (configuration)"
        };
        vec![fact("never-returns", "never returns", reason)]
    } else if let Some(k) = known_function(name) {
        let returns = match k.returns {
            Returns::Number => "returns a number (or nothing)",
            Returns::FirstArgument => "returns its first argument",
            Returns::IntoFirstArgument => "returns a pointer into its first argument, or NULL",
            Returns::StaticMemory => {
                "returns static or library-owned memory (never a block to free), or NULL"
            }
        };
        let ordinal = |i: usize| match i {
            0 => "first".to_string(),
            1 => "second".to_string(),
            2 => "third".to_string(),
            i => format!("{}th", i + 1),
        };
        let mut written: Vec<String> = k.writes.iter().map(|&i| ordinal(i)).collect();
        if let Some(from) = k.writes_from {
            written.push(format!("{} and later", ordinal(from)));
        }
        let writes = match written.len() {
            0 => String::new(),
            1 => format!("; writes through its {} argument", written[0]),
            _ => format!("; writes through its {} arguments", written.join(", ")),
        };
        vec![fact(
            "library",
            format!("keeps and frees none of its arguments; {returns}{writes}"),
            "the C library model",
        )]
    } else if db.settings().config(db).unknown_calls_escape {
        vec![fact(
            "unknown",
            "body not seen: assumed to keep or free any pointer passed to it (escaped), and to write what its pointer arguments reach",
            "no definition in the workspace and not in the library model; a leak of a pointer passed to it is reported `unproved (escaped)`, never proved",
        )]
    } else {
        vec![fact(
            "unknown",
            "body not seen: assumed to keep and free none of its arguments, but to write any memory",
            "no definition in the workspace and not in the library model; `unknown-calls-escape = false` (configuration)",
        )]
    };
    CalleeFacts {
        name: name.to_string(),
        body,
        facts,
    }
}

/// The innermost direct call (`name(…)`) whose text contains `offset`.
pub fn call_at(db: &dyn Db, file: SourceFile, offset: u32) -> Option<CallAt> {
    const MAX_UP: usize = 64;
    let tree = parsed(db, file);
    let src = file.text(db).as_bytes();
    let off = (offset as usize).min(src.len());
    let mut node = tree.0.root_node().descendant_for_byte_range(off, off)?;
    for _ in 0..MAX_UP {
        if node.kind() == "call_expression"
            && let Some(callee) = node.child_by_field_name("function")
            && callee.kind() == "identifier"
        {
            return Some(CallAt {
                callee: crate::syntax::ts::text(callee, src).to_string(),
                range: TextRange::new(node.start_byte() as u32, node.end_byte() as u32),
            });
        }
        node = node.parent()?;
    }
    None
}
