//! Undecided `#if` conditions as variables of the translation unit.
//!
//! A macro the build model could not decide (`MEM_PROFILE`, defined in no header Vim's
//! `alloc.c` reaches) has one value in all the function bodies of a `.c` file after its last
//! `#include`, whichever it is, unless the file itself `#define`s or `#undef`s it. An
//! `#ifdef MEM_PROFILE` arm in one function and the `#else` of the same test in another
//! cannot both run in one program; as separate nondeterministic choices they could, and a path
//! that frees with one arm (Vim's `vim_free`: `mem_pre_free(&x)` moves the pointer back over
//! its size header) and allocates with the other (`lalloc` without the header) is a leak no
//! build has.
//!
//! So each arm of such a group begins with `cond` statements on pseudo-globals named after the
//! conditions (`defined(MEM_PROFILE) != 0`, and `== 0` for each earlier arm of the chain), and
//! the engine's path constraints keep one value per name along a path, across calls. A name
//! carries its unit ([`condition_variable`]), so two files never share a value: a macro given
//! on the command line of one file only is still sound. A condition is named only when every
//! identifier in it is one of [`UnitConditions::constant`]; otherwise its arms are a plain
//! choice, as before. Nothing ever writes these names, so only a call that may write all
//! memory forgets them.

use super::Builder;
use crate::syntax::TextRange;
use tree_sitter::Node;

/// The conditions whose value is the same in every function body lowered with it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnitConditions {
    /// The translation unit (its file's path): part of every variable's name.
    pub unit: String,
    /// Macro names tested by `#if`s that the file never `#define`s or `#undef`s (sorted).
    pub constant: Vec<String>,
}

impl UnitConditions {
    fn is_constant(&self, name: &str) -> bool {
        self.constant
            .binary_search_by(|c| c.as_str().cmp(name))
            .is_ok()
    }
}

/// The most `cond` statements an arm begins with: its own condition, then the earlier arms'
/// negated (dropping some only forgets a constraint).
const MAX_ARM_TESTS: usize = 4;

/// Separates a condition from its unit in a pseudo-global's name (no C name contains it).
const UNIT_SEPARATOR: &str = " @ ";

/// The pseudo-global standing for condition `cond` in `unit`.
pub fn condition_variable(cond: &str, unit: &str) -> String {
    format!("{cond}{UNIT_SEPARATOR}{unit}")
}

/// A global's name as the user reads it: a condition variable without its unit.
pub fn shown_global(name: &str) -> &str {
    name.split_once(UNIT_SEPARATOR).map_or(name, |(c, _)| c)
}

/// Whether the global `name` is a condition variable ([`condition_variable`]).
pub fn is_condition_variable(name: &str) -> bool {
    name.contains(UNIT_SEPARATOR)
}

/// One arm's own test: the variable, and whether the arm runs when it is nonzero.
#[derive(Clone, Debug)]
pub(super) struct ArmTest {
    name: String,
    positive: bool,
    range: TextRange,
}

impl Builder<'_> {
    /// The test of the branch `b` of an `#if` chain (`#if`, `#ifdef`, `#elif`, …), when the
    /// unit has one for it; `None` for `#else` and for conditions that read anything not
    /// constant.
    pub(super) fn arm_test(&self, b: Node) -> Option<ArmTest> {
        let unit = self.ctx.unit?;
        let head = TextRange::new(
            b.start_byte() as u32,
            b.child(1).map_or(b.start_byte(), |n| n.end_byte()) as u32,
        );
        let (text, positive) = match b.kind() {
            "preproc_ifdef" | "preproc_elifdef" => {
                let name = b.child_by_field_name("name")?;
                let name = name.utf8_text(self.src).ok()?;
                if !unit.is_constant(name) {
                    return None;
                }
                let directive = b.child(0)?.utf8_text(self.src).ok()?;
                (format!("defined({name})"), !directive.contains("ifndef"))
            }
            "preproc_if" | "preproc_elif" => {
                let c = b.child_by_field_name("condition")?;
                self.condition_name(c, unit, 0)?
            }
            _ => return None,
        };
        Some(ArmTest {
            name: condition_variable(&text, &unit.unit),
            positive,
            range: head,
        })
    }

    /// A preprocessor condition as a name and a polarity: `!defined(X)` is `defined(X)`
    /// negated; any other is its text, spaces collapsed.
    fn condition_name(&self, c: Node, unit: &UnitConditions, depth: u32) -> Option<(String, bool)> {
        if depth > 16 || c.has_error() {
            return None;
        }
        match c.kind() {
            "parenthesized_expression" if c.named_child_count() == 1 => {
                self.condition_name(c.named_child(0)?, unit, depth + 1)
            }
            "unary_expression"
                if c.child(0).and_then(|o| o.utf8_text(self.src).ok()) == Some("!") =>
            {
                let (n, p) =
                    self.condition_name(c.child_by_field_name("argument")?, unit, depth + 1)?;
                Some((n, !p))
            }
            "preproc_defined" => {
                let id = c.named_child(0)?.utf8_text(self.src).ok()?;
                unit.is_constant(id)
                    .then(|| (format!("defined({id})"), true))
            }
            _ => {
                if !self.identifiers_constant(c, unit, depth) {
                    return None;
                }
                let text = c.utf8_text(self.src).ok()?;
                let words: Vec<&str> = text
                    .split(|ch: char| ch.is_whitespace() || ch == '\\')
                    .filter(|w| !w.is_empty())
                    .collect();
                (!words.is_empty()).then(|| (words.join(" "), true))
            }
        }
    }

    fn identifiers_constant(&self, n: Node, unit: &UnitConditions, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        if n.kind() == "identifier" {
            return n
                .utf8_text(self.src)
                .is_ok_and(|id| id == "defined" || unit.is_constant(id));
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        kids.into_iter()
            .all(|k| self.identifiers_constant(k, unit, depth + 1))
    }

    /// The tests arm `k` of a chain with tests `tests` runs under (its own, then the earlier
    /// arms' failed); `k == tests.len()` is the `#else` arm, or the way past the group when it
    /// has none.
    pub(super) fn arm_tests(tests: &[Option<ArmTest>], k: usize) -> Vec<(ArmTest, bool)> {
        let own = tests.get(k).cloned().flatten().map(|t| (t, true));
        let earlier = tests[..k.min(tests.len())]
            .iter()
            .flatten()
            .map(|t| (t.clone(), false));
        own.into_iter().chain(earlier).take(MAX_ARM_TESTS).collect()
    }

    /// From `from`, the `cond` statements of `tests` in a row; the last one (or `from`).
    pub(super) fn assume_tests(
        &mut self,
        from: crate::ir::NodeId,
        tests: &[(ArmTest, bool)],
    ) -> crate::ir::NodeId {
        let mut at = from;
        for (t, holds) in tests {
            let addr = self.addr_of_global(&t.name, crate::ir::Type::Int);
            let v = self.deref(addr);
            let zero = self.int(0);
            let op = if t.positive == *holds {
                crate::ir::CmpOp::Ne
            } else {
                crate::ir::CmpOp::Eq
            };
            let n = self.cond_node(v, op, zero, t.range);
            self.link(at, n);
            at = n;
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::UnitConditions;
    use crate::ir::{LibraryModel, LowerContext, StmtKind, collect_items, display_stmt};

    /// The `cond` statements on condition variables of `f` in `src`, lowered with `constant`.
    fn tests_of(src: &str, constant: &[&str]) -> Vec<String> {
        tests_shown(src, constant, crate::ir::Notation::C)
    }

    /// [`tests_of`], printed in `notation`.
    fn tests_shown(src: &str, constant: &[&str], notation: crate::ir::Notation) -> Vec<String> {
        let tree = crate::syntax::parse(src, None);
        let items = collect_items(&tree, src);
        let lib = LibraryModel::standard();
        let mut constant: Vec<String> = constant.iter().map(|s| s.to_string()).collect();
        constant.sort();
        let unit = UnitConditions {
            unit: "u.c".into(),
            constant,
        };
        let ctx = LowerContext {
            env: &items.env,
            lib: &lib,
            unit: Some(&unit),
            qual: None,
        };
        let ir = crate::ir::lower_function(&items.functions[0].source, &ctx);
        ir.nodes
            .iter()
            .filter(|n| matches!(n.stmt.kind, StmtKind::Cond { .. }))
            .filter(|n| display_stmt(&ir, &n.stmt.kind, crate::ir::Notation::C).contains(" @ u.c"))
            .map(|n| display_stmt(&ir, &n.stmt.kind, notation))
            .collect()
    }

    #[test]
    fn messages_show_a_condition_without_its_file() {
        let src = "void f(int *p) {\n#ifndef A\n  p[0] = 1;\n#endif\n}\n";
        let mut t = tests_shown(src, &["A"], crate::ir::Notation::Source);
        t.sort();
        assert_eq!(t, ["cond(defined(A) != 0)", "cond(defined(A) == 0)"]);
    }

    #[test]
    fn each_arm_tests_its_condition_and_the_earlier_ones_failed() {
        let src = "void f(int *p) {\n#ifdef A\n  p[0] = 1;\n#elif !defined(B)\n  p[0] = 2;\n#else\n  p[0] = 3;\n#endif\n}\n";
        let mut t = tests_of(src, &["A", "B"]);
        t.sort();
        // Arm 1: A; arm 2: !B and !A; else: B and !A.
        let want = [
            "cond(defined(A) @ u.c != 0)",
            "cond(defined(A) @ u.c == 0)",
            "cond(defined(A) @ u.c == 0)",
            "cond(defined(B) @ u.c != 0)",
            "cond(defined(B) @ u.c == 0)",
        ];
        assert_eq!(t, want);
    }

    #[test]
    fn a_group_without_else_tests_on_the_way_past_it() {
        let src = "void f(int *p) {\n#ifndef A\n  p[0] = 1;\n#endif\n}\n";
        let mut t = tests_of(src, &["A"]);
        t.sort();
        assert_eq!(
            t,
            ["cond(defined(A) @ u.c != 0)", "cond(defined(A) @ u.c == 0)"]
        );
    }

    #[test]
    fn a_condition_reading_a_name_that_is_not_constant_is_not_named() {
        let src = "void f(int *p) {\n#if defined(A) && VERSION > 2\n  p[0] = 1;\n#endif\n#if defined(A) && B > 2\n  p[0] = 2;\n#endif\n}\n";
        let mut t = tests_of(src, &["A", "B"]);
        t.sort();
        assert_eq!(
            t,
            [
                "cond(defined(A) && B > 2 @ u.c != 0)",
                "cond(defined(A) && B > 2 @ u.c == 0)"
            ]
        );
        assert!(tests_of(src, &[]).is_empty());
    }
}
