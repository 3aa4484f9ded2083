//! Statements that macros made tree-sitter misparse, recovered from the tree: statement macros
//! without `;`, `M( stmt; )` blocks, loop macros, control statements parsed as definitions and
//! statements parsed as prototypes.

use super::{Builder, LoopTarget};
use crate::ir::types::{Type, is_builtin_integer_typedef};
use crate::ir::{Callee, ExprId, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{has_syntax_error, text};
use tree_sitter::Node;

impl Builder<'_> {
    /// A statement macro that had no `;` (`FREE_AND_NULL(s)`, `CHECK_COMPAT(buf)⏎if …`,
    /// `LIBXML_TEST_VERSION⏎for …`), given one by `repair`. Unlike a call, a macro can assign
    /// its arguments or jump: `M(args)` is the call only when the library model names `M` (a
    /// configured allocator or deallocator), and otherwise opaque, reading its arguments. A
    /// bare `M` is what `M;` is: a name read for nothing.
    pub(super) fn statement_macro(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let Some(e) = n.named_child(0) else {
            return;
        };
        if e.kind() != "call_expression" || has_syntax_error(e) {
            return self.effect(e);
        }
        let callee = e.child_by_field_name("function");
        let name = callee.map(|c| text(c, self.src)).unwrap_or_default();
        let lib = self.ctx.lib;
        let modelled = callee.is_some_and(|c| c.kind() == "identifier")
            && (lib.allocators.contains_key(name)
                || lib.deallocators.contains_key(name)
                || matches!(name, "_Pragma" | "__pragma"));
        if modelled {
            return self.effect(e);
        }
        let name = name.to_string();
        self.fallback(
            range,
            format!("statement macro `{name}(…)` without `;`: not understood"),
        );
        let reads = match e.child_by_field_name("arguments") {
            Some(a) => self.reads_in(a),
            None => vec![],
        };
        self.emit(
            StmtKind::Opaque {
                reason: format!("statement macro `{name}`"),
                reads,
            },
            range,
        );
    }

    /// `M( stmt; )` rewritten to a block by `repair` (`SimulateIOError( return X; )`,
    /// `MUTEX_LOGIC( sqlite3_mutex *m; )`): the statements may run or not, like an `#if` branch,
    /// and their declarations belong to the enclosing block.
    pub(super) fn macro_block(&mut self, block: Node, name: &str, at: u32) {
        let range = TextRange::new(at, block.end_byte() as u32);
        self.fallback(
            range,
            format!(
                "statement macro `{name}` with statements as its argument: they may run or not"
            ),
        );
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        self.block_items(block);
        self.jump_to(join);
        self.link(start, join);
        self.cur = Some(join);
    }

    /// `MACRO(x)` without `;` followed by a block: a loop macro (`FOREACH(list, it) { … }`).
    /// The macro runs at the head of each iteration; `break` and `continue` in the block work.
    pub(super) fn loop_macro(&mut self, call: Node, body: Node) {
        let range = TextRange::new(call.start_byte() as u32, body.end_byte() as u32);
        let name = call
            .child_by_field_name("function")
            .map(|f| text(f, self.src).to_string())
            .unwrap_or_default();
        self.fallback(
            TextRange::of_node(&call),
            format!("`{name}` without `;` before a block: lowered as a loop macro"),
        );
        let head = self.join(TextRange::new(range.start, range.start));
        self.goto_node(head);
        let exit = self.join(TextRange::new(range.end, range.end));
        self.effect(call);
        let test = self.ensure_reachable_point(range);
        self.loop_body(Some(body), exit, Some(head));
        self.jump_to(head);
        self.link(test, exit);
        self.cur = Some(exit);
    }

    /// `else if (c) { … }` behind `#ifndef`, or `MACRO(x)` without `;` before `if (c) { … }`,
    /// parse as a function definition named `if`. The condition is not understood: the body
    /// may run (once for `if`, any number of times for `while`/`for`) or not.
    pub(super) fn misparsed_control_statement(&mut self, n: Node, keyword: &str) {
        let range = TextRange::of_node(&n);
        self.fallback(
            range,
            format!("`{keyword}` statement parsed as a function definition: its condition is not understood"),
        );
        // The statement macro in front, if any, and the condition: what they read.
        let mut reads = match n.child_by_field_name("type") {
            Some(t) if t.kind() == "macro_type_specifier" => self.reads_in(t),
            _ => vec![],
        };
        // The declarator holds the condition (one nested declarator per parenthesized operand).
        if let Some(declarator) = n.child_by_field_name("declarator") {
            for r in self.reads_in(declarator) {
                if !reads.contains(&r) {
                    reads.push(r);
                }
            }
        }
        self.emit(
            StmtKind::Opaque {
                reason: format!("`{keyword}` condition not understood"),
                reads,
            },
            range,
        );
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let head = self.ensure_reachable_point(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        let looping = matches!(keyword, "while" | "for");
        if looping {
            self.loops.push(LoopTarget {
                brk: exit,
                cont: Some(head),
                depth: self.scopes.len(),
            });
        }
        self.stmt(body);
        if looping {
            self.loops.pop();
            self.jump_to(head);
        } else {
            self.jump_to(exit);
        }
        self.link(head, exit);
        self.cur = Some(exit);
    }

    /// `GROW⏎free(p);` or `TODO⏎return(0);`: a statement macro without `;` followed by a call
    /// or a `return`, parsed as a block-scope prototype `GROW free(p);`. Returns false for a
    /// real prototype.
    pub(super) fn misparsed_prototype(&mut self, n: Node) -> bool {
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            return false;
        };
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        let [fd] = decls.as_slice() else {
            return false;
        };
        let fd = *fd;
        let storage = {
            let mut c = n.walk();
            n.children(&mut c)
                .any(|k| k.kind() == "storage_class_specifier")
        };
        // The "type" must be a name that is not a type (a macro).
        let macro_name = spec.kind() == "type_identifier"
            && !is_builtin_integer_typedef(text(spec, src))
            && !self.ctx.env.typedefs.contains_key(text(spec, src))
            && !self
                .scopes
                .iter()
                .any(|s| s.typedefs.contains_key(text(spec, src)));
        if fd.kind() != "function_declarator" || storage || !macro_name {
            return false;
        }
        let Some(name_node) = fd.child_by_field_name("declarator") else {
            return false;
        };
        let name = text(name_node, src).to_string();
        let params = fd.child_by_field_name("parameters");
        // Evidence of a statement: a keyword as the name, or an argument that is a variable
        // in scope, a literal or not a parameter at all.
        let mut args: Vec<Node> = Vec::new();
        if let Some(p) = params {
            let mut c = p.walk();
            args = p.named_children(&mut c).collect();
        }
        let is_value = |b: &Self, a: &Node| match a.kind() {
            "parameter_declaration" => {
                a.named_child_count() == 1
                    && a.named_child(0).is_some_and(|t| {
                        t.kind() == "type_identifier" && b.is_variable(text(t, src))
                    })
            }
            "comment" => false,
            _ => true,
        };
        let keyword = name_node.kind() == "identifier" && name == "return";
        if !keyword && !args.iter().any(|a| is_value(self, a)) {
            return false;
        }
        let range = TextRange::of_node(&n);
        self.fallback(
            range,
            format!(
                "`{} {name}(…)` parsed as a prototype: lowered as the statement macro `{}` then a {}",
                text(spec, src),
                text(spec, src),
                if keyword { "return" } else { "call" }
            ),
        );
        if keyword {
            let reads = params.map(|p| self.reads_in(p)).unwrap_or_default();
            self.emit(
                StmtKind::Opaque {
                    reason: "return value not understood".into(),
                    reads,
                },
                range,
            );
            if let Some(r) = self.ret {
                let addr = self.addr_of_local(r);
                let u = self.unknown(self.locals[r.0 as usize].ty.clone());
                self.emit(StmtKind::Assign { addr, value: u }, range);
            }
            self.ensure_reachable_point(range);
            self.scope_end_all(range);
            self.cur = None;
            return true;
        }
        let arg_values: Vec<ExprId> = args
            .iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| {
                let var = (a.kind() == "parameter_declaration" && a.named_child_count() == 1)
                    .then(|| a.named_child(0))
                    .flatten()
                    .filter(|t| self.is_variable(text(*t, src)));
                match var {
                    Some(t) => self.identifier_value(t),
                    None => {
                        let reads = self.reads_in(*a);
                        if !reads.is_empty() {
                            self.emit(
                                StmtKind::Opaque {
                                    reason: "argument not understood".into(),
                                    reads,
                                },
                                TextRange::of_node(a),
                            );
                        }
                        self.unknown(Type::Unknown)
                    }
                }
            })
            .collect();
        let callee = if self.is_direct_callee(&name) {
            Callee::Direct(name)
        } else {
            let f = self.identifier_value(name_node);
            Callee::Indirect(f)
        };
        self.emit_call(callee, arg_values, None, n, range);
        true
    }
}
