//! Building the CFG: statements and edges at the current point, and the fallbacks (a
//! syntax error, a fragment nested too deeply, what an opaque fragment reads).

use super::{Binding, Builder, MAX_DEPTH, Node0};
use crate::ir::{CmpOp, ExprId, Fallback, NodeId, Stmt, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{has_syntax_error, text};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn new_node(&mut self, kind: StmtKind, range: TextRange) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node0 {
            stmt: Stmt { kind, range },
            succs: SmallVec::new(),
        });
        id
    }

    pub(super) fn link(&mut self, from: NodeId, to: NodeId) {
        let s = &mut self.nodes[from.0 as usize].succs;
        if !s.contains(&to) {
            s.push(to);
        }
    }

    /// Append a statement at the current point. Code after a jump is unreachable but still
    /// lowered (it may be a label's target): it starts a fresh node without predecessors.
    pub(super) fn emit(&mut self, kind: StmtKind, range: TextRange) -> NodeId {
        let id = self.new_node(kind, range);
        if let Some(c) = self.cur {
            self.link(c, id);
        }
        self.cur = Some(id);
        id
    }

    pub(super) fn join(&mut self, range: TextRange) -> NodeId {
        self.new_node(StmtKind::Nop, range)
    }

    /// Continue at `node` from the current point (if reachable).
    pub(super) fn goto_node(&mut self, node: NodeId) {
        if let Some(c) = self.cur {
            self.link(c, node);
        }
        self.cur = Some(node);
    }

    pub(super) fn jump_to(&mut self, node: NodeId) {
        if let Some(c) = self.cur {
            self.link(c, node);
        }
        self.cur = None;
    }

    pub(super) fn ensure_reachable_point(&mut self, range: TextRange) -> NodeId {
        match self.cur {
            Some(c) => c,
            None => self.emit(StmtKind::Nop, range),
        }
    }

    pub(super) fn fallback(&mut self, range: TextRange, reason: impl Into<String>) {
        self.fallbacks.push(Fallback {
            range,
            reason: reason.into(),
        });
    }

    /// A fragment with a syntax error: an opaque statement reading the variables it mentions.
    pub(super) fn syntax_error(&mut self, n: Node) {
        self.fallback(TextRange::of_node(&n), "syntax error");
        self.opaque(n, "syntax error");
    }

    /// An opaque statement for the fragment `n`, reading the variables it mentions.
    pub(super) fn opaque(&mut self, n: Node, reason: impl Into<String>) -> NodeId {
        let reads = self.reads_in(n);
        let kind = StmtKind::Opaque {
            reason: reason.into(),
            reads,
        };
        self.emit(kind, TextRange::of_node(&n))
    }

    /// A fragment of a kind the lowering does not support (`what` says which): a fallback, and
    /// an opaque statement when it mentions variables.
    pub(super) fn unsupported(&mut self, n: Node, what: String) {
        self.fallback(TextRange::of_node(&n), what.clone());
        let reads = self.reads_in(n);
        if !reads.is_empty() {
            let kind = StmtKind::Opaque {
                reason: what,
                reads,
            };
            self.emit(kind, TextRange::of_node(&n));
        }
    }

    /// A `cond` statement: the edge on which `lhs op rhs` holds.
    pub(super) fn cond_node(
        &mut self,
        lhs: ExprId,
        op: CmpOp,
        rhs: ExprId,
        range: TextRange,
    ) -> NodeId {
        self.new_node(StmtKind::Cond { lhs, op, rhs }, range)
    }

    /// ERROR children of a control statement that its fields do not reach (`if x > 0) …`).
    pub(super) fn stray_errors(&mut self, n: Node) {
        let mut c = n.walk();
        let errors: Vec<Node> = n.children(&mut c).filter(|k| k.is_error()).collect();
        for e in errors {
            self.syntax_error(e);
        }
    }

    /// Lower `n` with `lower`, one nesting level deeper. A fragment nested deeper than
    /// [`MAX_DEPTH`], or with a syntax error when `guard` checks for them, is not lowered: it is
    /// recorded as a fallback (and an opaque statement, as `guard` says), and `stand_in` gives
    /// the result instead.
    pub(super) fn guarded<T>(
        &mut self,
        n: Node,
        guard: Guard,
        lower: impl FnOnce(&mut Self) -> T,
        stand_in: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if self.depth >= MAX_DEPTH {
            self.fallback(TextRange::of_node(&n), guard.too_deep);
            if guard.opaque_when_too_deep {
                self.opaque_region(n);
            }
            return stand_in(self);
        }
        if guard.syntax_errors && has_syntax_error(n) {
            self.syntax_error(n);
            return stand_in(self);
        }
        self.deeper(lower)
    }

    /// Run `lower` one nesting level deeper (the caller checked [`MAX_DEPTH`]).
    pub(super) fn deeper<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        self.depth += 1;
        let v = lower(self);
        self.depth -= 1;
        v
    }

    /// One opaque statement for a fragment nested too deeply to lower.
    pub(super) fn opaque_region(&mut self, n: Node) {
        let r = TextRange::of_node(&n);
        let node = self.opaque(n, "nested too deeply");
        let chain = self.scope_chain();
        self.opaque_regions.push((r, node, chain));
    }

    /// Values of the variables an unsupported fragment mentions: whatever it does, it may read
    /// (and let escape) these.
    pub(super) fn reads_in(&mut self, n: Node) -> Vec<ExprId> {
        let mut names: Vec<String> = Vec::new();
        let mut seen = FxHashSet::default();
        let mut stack = vec![n];
        let mut budget = 4096;
        while let Some(x) = stack.pop() {
            budget -= 1;
            if budget == 0 {
                break;
            }
            // A variable can hide as a type name in a misparsed macro (`FREE_AND_NULL(s)`).
            let variable_as_type =
                x.kind() == "type_identifier" && self.is_variable(text(x, self.src));
            if x.kind() == "identifier" || variable_as_type {
                let t = text(x, self.src).to_string();
                if seen.insert(t.clone()) {
                    names.push(t);
                }
            }
            let mut c = x.walk();
            stack.extend(x.children(&mut c));
        }
        let mut reads = Vec::new();
        for name in names {
            match self.lookup(&name) {
                Some(Binding::Local(l)) => {
                    let a = self.addr_of_local(l);
                    reads.push(self.deref(a));
                }
                Some(Binding::Global(g, ty)) => {
                    let a = self.addr_of_global(&g, ty);
                    reads.push(self.deref(a));
                }
                None => {
                    if let Some(ty) = self.ctx.env.globals.get(&name).cloned() {
                        let ty = self.resolve(&ty);
                        let a = self.addr_of_global(&name, ty);
                        reads.push(self.deref(a));
                    }
                }
            }
        }
        reads
    }
}

/// What [`Builder::guarded`] does with a fragment it does not lower, for each recursive
/// lowering function.
pub(super) struct Guard {
    /// The fallback's reason when the fragment nests deeper than [`MAX_DEPTH`].
    too_deep: &'static str,
    /// A fragment nested too deeply becomes one opaque statement reading its variables (a
    /// `goto` to a label inside it lands there).
    opaque_when_too_deep: bool,
    /// A fragment with a syntax error (`has_syntax_error`) becomes an opaque statement.
    syntax_errors: bool,
}

impl Guard {
    /// `stmt`: a statement's syntax errors are found by kind, in `stmt_inner`.
    pub(super) const STATEMENT: Guard = Guard {
        too_deep: "statement nested too deeply",
        opaque_when_too_deep: true,
        syntax_errors: false,
    };
    /// `cond`.
    pub(super) const CONDITION: Guard = Guard {
        too_deep: "condition nested too deeply",
        opaque_when_too_deep: false,
        syntax_errors: true,
    };
    /// `effect`, `assign_into`, `rvalue`.
    pub(super) const VALUE: Guard = Guard {
        too_deep: "expression nested too deeply",
        opaque_when_too_deep: true,
        syntax_errors: true,
    };
    /// `lvalue`.
    pub(super) const ADDRESS: Guard = Guard {
        too_deep: "expression nested too deeply",
        opaque_when_too_deep: false,
        syntax_errors: true,
    };
}
