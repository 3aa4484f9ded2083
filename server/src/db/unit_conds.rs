//! Which undecided `#if` conditions of a `.c` file keep one value in all its function bodies
//! (see `ir::lower::unit_conds` for what the lowering makes of them).
//!
//! Only the functions after the file's last `#include` take part: every header of the unit is
//! read before them, so what a macro is there (defined, maybe defined in an undecided arm of a
//! header, or unknown: a flag the build model did not see, a configuration header it did not
//! find) is what it is in all of them, unless the file itself `#define`s or `#undef`s it; a
//! name the file does is not a constant. A header, or a `.c` file another workspace file
//! includes, is compiled in several contexts and takes no part.

use super::build::{directive_index, first_includers, shared_text};
use super::database::Db;
use super::front_end::Function;
use super::inputs::SourceFile;
use crate::build::directive::DirectiveKind;
use crate::build::lex::TokKind;
use crate::ir::UnitConditions;
use std::sync::Arc;

/// Predefined macros whose value changes along the file.
const VARYING: [&str; 3] = ["__LINE__", "__COUNTER__", "__INCLUDE_LEVEL__"];

/// A `.c` file's conditions, and the offset after its last `#include`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileConditions {
    pub after: u32,
    pub conditions: Arc<UnitConditions>,
}

/// The conditions of `file` (`None` for a header or an included `.c` file, or when no
/// condition qualifies).
#[salsa::tracked(returns(clone))]
pub fn file_conditions(db: &dyn Db, file: SourceFile) -> Option<FileConditions> {
    let path = file.path(db);
    if path.extension().and_then(|e| e.to_str()) != Some("c") {
        return None;
    }
    if first_includers(db, db.workspace()).contains_key(&file) {
        return None;
    }
    let index = directive_index(db, file);
    let mut after = 0u32;
    let mut tested: Vec<String> = Vec::new();
    let mut undefined: Vec<String> = Vec::new();
    let text = shared_text(db, file);
    for (range, d) in index.directives.iter().zip(&index.parsed) {
        match d.kind {
            DirectiveKind::Include | DirectiveKind::IncludeNext => {
                after = after.max(range.end as u32);
            }
            DirectiveKind::If
            | DirectiveKind::Ifdef
            | DirectiveKind::Ifndef
            | DirectiveKind::Elif
            | DirectiveKind::Elifdef
            | DirectiveKind::Elifndef => {
                for t in d.operands.iter().filter(|t| t.kind == TokKind::Ident) {
                    if let Some(name) = text.get(t.range.clone()) {
                        tested.push(name.to_string());
                    }
                }
            }
            DirectiveKind::Undef | DirectiveKind::Define => {
                if let Some(t) = d.operands.first().filter(|t| t.kind == TokKind::Ident)
                    && let Some(name) = text.get(t.range.clone())
                {
                    undefined.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    tested.sort_unstable();
    tested.dedup();
    undefined.sort_unstable();
    let constant: Vec<String> = tested
        .into_iter()
        .filter(|n| n != "defined" && !VARYING.contains(&n.as_str()))
        .filter(|n| undefined.binary_search(n).is_err())
        .collect();
    if constant.is_empty() {
        return None;
    }
    Some(FileConditions {
        after,
        conditions: Arc::new(UnitConditions {
            unit: path.display().to_string(),
            constant,
        }),
    })
}

/// The conditions `f`'s lowering may name: its file's, when `f` comes after the last
/// `#include`.
#[salsa::tracked(returns(clone))]
pub fn unit_conditions<'db>(db: &'db dyn Db, f: Function<'db>) -> Option<Arc<UnitConditions>> {
    let fc = file_conditions(db, f.file(db))?;
    (f.start(db) >= fc.after).then_some(fc.conditions)
}
