//! Conditions: branches on `&&`, `||`, `!` and comparisons (a constant condition is decided
//! here), and conditions used as values.

use super::Builder;
use super::cfg::Guard;
use super::split::SplitAs;
use crate::ir::types::Type;
use crate::ir::{CmpOp, ExprId, ExprKind, NodeId, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{last_named, operator};
use tree_sitter::Node;

impl Builder<'_> {
    /// Branch on a condition: continue at `t` when it holds and at `f` otherwise.
    pub(super) fn cond(&mut self, n: Node, t: NodeId, f: NodeId) {
        if self.split_choice(n, SplitAs::Condition { t, f }) {
            return;
        }
        // Not understood: both ways are possible.
        let either = |b: &mut Self| {
            let p = b.ensure_reachable_point(TextRange::of_node(&n));
            b.link(p, t);
            b.link(p, f);
            b.cur = None;
        };
        self.guarded(n, Guard::CONDITION, |b| b.cond_inner(n, t, f), either);
    }

    fn cond_inner(&mut self, n: Node, t: NodeId, f: NodeId) {
        let range = TextRange::of_node(&n);
        match n.kind() {
            "parenthesized_expression" => {
                if let Some(inner) = last_named(n) {
                    return self.cond(inner, t, f);
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    return self.cond(r, t, f);
                }
            }
            "unary_expression" if operator(n, self.src) == "!" => {
                if let Some(a) = n.child_by_field_name("argument") {
                    return self.cond(a, f, t);
                }
            }
            "binary_expression" => {
                let op = operator(n, self.src);
                let (l, r) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                );
                if let (Some(l), Some(r)) = (l, r) {
                    match op {
                        "&&" => {
                            let mid = self.join(TextRange::of_node(&r));
                            self.cond(l, mid, f);
                            self.cur = Some(mid);
                            return self.cond(r, t, f);
                        }
                        "||" => {
                            let mid = self.join(TextRange::of_node(&r));
                            self.cond(l, t, mid);
                            self.cur = Some(mid);
                            return self.cond(r, t, f);
                        }
                        "==" | "!=" | "<" | "<=" | ">" | ">=" => {
                            let lv = self.rvalue(l);
                            let rv = self.rvalue(r);
                            let op = match op {
                                "==" => CmpOp::Eq,
                                "!=" => CmpOp::Ne,
                                "<" => CmpOp::Lt,
                                "<=" => CmpOp::Le,
                                ">" => CmpOp::Gt,
                                _ => CmpOp::Ge,
                            };
                            return self.branch(lv, op, rv, range, t, f);
                        }
                        _ => {}
                    }
                }
            }
            "cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    return self.cond(v, t, f);
                }
            }
            _ => {}
        }
        // Any other scalar: true when it is not zero.
        let v = self.rvalue(n);
        let zero = self.int(0);
        self.branch(v, CmpOp::Ne, zero, range, t, f);
    }

    pub(super) fn branch(
        &mut self,
        l: ExprId,
        op: CmpOp,
        r: ExprId,
        range: TextRange,
        t: NodeId,
        f: NodeId,
    ) {
        let from = self.ensure_reachable_point(range);
        if let (ExprKind::Int(a), ExprKind::Int(b)) = (self.exprs.kind(l), self.exprs.kind(r)) {
            // A constant condition (`while (1)`, `do … while (0)`): only one way to go.
            let holds = match op {
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
            };
            self.link(from, if holds { t } else { f });
            self.cur = None;
            return;
        }
        let yes = self.cond_node(l, op, r, range);
        let no = self.cond_node(l, op.negate(), r, range);
        self.link(from, yes);
        self.link(yes, t);
        self.link(from, no);
        self.link(no, f);
        self.cur = None;
    }

    /// A condition used as a value (`x = p && q`): branches that store 1 or 0 in a temporary.
    pub(super) fn cond_value(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let tmp = self.new_temp(Type::Int, n);
        let t = self.join(range);
        let f = self.join(range);
        let join = self.join(TextRange::new(range.end, range.end));
        self.cond(n, t, f);
        let addr = self.addr_of_local(tmp);
        let one = self.int(1);
        let zero = self.int(0);
        self.cur = Some(t);
        self.emit(StmtKind::Assign { addr, value: one }, range);
        self.jump_to(join);
        self.cur = Some(f);
        self.emit(StmtKind::Assign { addr, value: zero }, range);
        self.jump_to(join);
        self.cur = Some(join);
        self.deref(addr)
    }
}
