//! Side effects: expressions evaluated as statements, assignments, and initializers (struct
//! copies field by field, initializer lists spread over fields and elements).

use super::cfg::Guard;
use super::{Builder, MAX_INIT_ELEMENTS, MAX_STRUCT_EXPANSION};
use crate::ir::types::{Type, parse_int_literal};
use crate::ir::{BinOp, CmpOp, ExprId, ExprKind, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{operator, text};
use rustc_hash::FxHashSet;
use tree_sitter::Node;

impl Builder<'_> {
    /// Evaluate for side effects only.
    pub(super) fn effect(&mut self, n: Node) {
        self.guarded(n, Guard::VALUE, |b| b.effect_inner(n), |_| ());
    }

    fn effect_inner(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        match n.kind() {
            "call_expression" if self.is_assert(n) => self.assert_call(n, range),
            "call_expression" => self.call(n, None, range),
            "assignment_expression" => {
                self.assignment(n);
            }
            "update_expression" => {
                if let Some(a) = n.child_by_field_name("argument") {
                    let addr = self.lvalue(a);
                    self.increment(addr, n, range);
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    self.effect(r);
                }
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    if k.kind() == "compound_statement" {
                        // GNU statement expression used as a statement.
                        self.stmt(k);
                    } else {
                        self.effect(k);
                    }
                }
            }
            "cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.effect(v);
                }
            }
            "conditional_expression" => {
                let t = self.join(range);
                let f = self.join(range);
                let join = self.join(TextRange::new(range.end, range.end));
                match n.child_by_field_name("condition") {
                    Some(c) => self.cond(c, t, f),
                    None => self.jump_to(t),
                }
                self.cur = Some(t);
                if let Some(c) = n.child_by_field_name("consequence") {
                    self.effect(c);
                }
                self.jump_to(join);
                self.cur = Some(f);
                if let Some(a) = n.child_by_field_name("alternative") {
                    self.effect(a);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
            "binary_expression" if matches!(operator(n, self.src), "&&" | "||") => {
                // `a && f()` as a statement: `f()` runs only when `a` holds; its value is
                // not tested.
                let join = self.join(TextRange::new(range.end, range.end));
                let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    self.rvalue(n);
                    return;
                };
                let rhs = self.join(TextRange::of_node(&r));
                if operator(n, self.src) == "&&" {
                    self.cond(l, rhs, join);
                } else {
                    self.cond(l, join, rhs);
                }
                self.cur = Some(rhs);
                self.effect(r);
                self.jump_to(join);
                self.cur = Some(join);
            }
            "gnu_asm_expression" => {
                self.opaque(n, "inline assembly");
            }
            _ => {
                // A pure expression: only its nested side effects matter.
                self.rvalue(n);
            }
        }
    }

    /// `x++`, `--x` as a statement: `*addr ← *addr ± 1`.
    pub(super) fn increment(&mut self, addr: ExprId, n: Node, range: TextRange) {
        let old = self.deref(addr);
        let one = self.int(1);
        let op = if text(n, self.src).contains("++") {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let new = self.binary(op, old, one);
        self.emit(StmtKind::Assign { addr, value: new }, range);
    }

    /// An assignment expression; returns the assigned location's address.
    pub(super) fn assignment(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            self.fallback(range, "incomplete assignment");
            return self.unknown(Type::Unknown);
        };
        let addr = self.lvalue(left);
        let op = operator(n, self.src);
        if op == "=" {
            let ty = match self.exprs.ty(addr) {
                Type::Pointer(t) => (**t).clone(),
                _ => Type::Unknown,
            };
            self.assign_into(addr, &ty, right, range);
        } else {
            let bop = BinOp::from_c_operator(op.trim_end_matches('=')).unwrap_or(BinOp::Add);
            let r = self.rvalue(right);
            let old = self.deref(addr);
            let value = self.binary(bop, old, r);
            self.emit(StmtKind::Assign { addr, value }, range);
        }
        addr
    }

    /// Store the value of `value` at `addr` (whose pointee type is `ty`): calls store straight
    /// into the destination, struct values are copied field by field, initializer lists are
    /// spread over fields and elements, `?:` assigns in each branch.
    pub(super) fn assign_into(&mut self, addr: ExprId, ty: &Type, value: Node, range: TextRange) {
        // Not understood, the value is unknown; but where it goes is: the destination is written.
        let unknown_value = |b: &mut Self| {
            let u = b.unknown(ty.clone());
            b.emit(StmtKind::Assign { addr, value: u }, range);
        };
        self.guarded(
            value,
            Guard::VALUE,
            |b| b.assign_into_inner(addr, ty, value, range),
            unknown_value,
        );
    }

    fn assign_into_inner(&mut self, addr: ExprId, ty: &Type, value: Node, range: TextRange) {
        match value.kind() {
            "string_literal" | "concatenated_string" if matches!(ty, Type::Array(..)) => {
                // `char buf[] = "abc"` copies characters into the array: numbers, not the
                // literal's address.
                let zero = self.int(0);
                let first = self.index_addr(addr, zero);
                let v = self.scalar();
                self.emit(
                    StmtKind::Assign {
                        addr: first,
                        value: v,
                    },
                    range,
                );
            }
            "call_expression" if !self.is_builtin_value_call(value) => {
                self.call(value, Some(addr), range)
            }
            "parenthesized_expression" if value.named_child_count() == 1 => {
                let inner = value.named_child(0).expect("child");
                if inner.kind() == "compound_statement" {
                    let v = self.rvalue(value);
                    self.store(addr, ty, v, range);
                } else {
                    self.assign_into(addr, ty, inner, range)
                }
            }
            "cast_expression" => match value.child_by_field_name("value") {
                Some(v) => self.assign_into(addr, ty, v, range),
                None => {
                    let u = self.unknown(ty.clone());
                    self.store(addr, ty, u, range)
                }
            },
            "conditional_expression" => {
                let vrange = TextRange::of_node(&value);
                let t = self.join(vrange);
                let f = self.join(vrange);
                let join = self.join(TextRange::new(vrange.end, vrange.end));
                let cons = value.child_by_field_name("consequence");
                match value.child_by_field_name("condition") {
                    Some(c) if cons.is_none() => {
                        // GNU `a ?: b`: the condition's value is the result.
                        let cv = self.rvalue(c);
                        let zero = self.int(0);
                        self.branch(cv, CmpOp::Ne, zero, vrange, t, f);
                        self.cur = Some(t);
                        self.store(addr, ty, cv, range);
                        self.jump_to(join);
                    }
                    Some(c) => {
                        self.cond(c, t, f);
                        self.cur = Some(t);
                        if let Some(cons) = cons {
                            self.assign_into(addr, ty, cons, range);
                        }
                        self.jump_to(join);
                    }
                    None => self.jump_to(t),
                }
                self.cur = Some(f);
                if let Some(alt) = value.child_by_field_name("alternative") {
                    self.assign_into(addr, ty, alt, range);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
            "initializer_list" => self.init_list(addr, ty, value, range, 0),
            "assignment_expression" => {
                // `p = q = e`: the inner assignment first, then copy its location.
                let inner = self.assignment(value);
                let v = self.deref(inner);
                self.store(addr, ty, v, range);
            }
            _ => {
                let v = self.rvalue(value);
                self.store(addr, ty, v, range);
            }
        }
    }

    /// `*addr ← v`, expanding struct copies into field copies.
    fn store(&mut self, addr: ExprId, ty: &Type, v: ExprId, range: TextRange) {
        if ty.is_aggregate()
            && let ExprKind::Deref(src_addr) = *self.exprs.kind(v)
            && self.expand_struct_copy(addr, src_addr, ty, range, 0)
        {
            return;
        }
        self.emit(StmtKind::Assign { addr, value: v }, range);
    }

    /// Copy a struct field by field (recursing into nested struct members). Returns false when
    /// the layout is unknown, so that the caller emits one whole-struct assignment.
    fn expand_struct_copy(
        &mut self,
        dst: ExprId,
        src: ExprId,
        ty: &Type,
        range: TextRange,
        depth: u32,
    ) -> bool {
        let Some(def) = self.struct_def(ty) else {
            return false;
        };
        if def.is_union || def.fields.is_empty() || depth > MAX_STRUCT_EXPANSION {
            return false;
        }
        for f in &def.fields {
            let fty = self.resolve(&f.ty);
            let d = self.field(dst, &f.name);
            let s = self.field(src, &f.name);
            if fty.is_aggregate() && self.expand_struct_copy(d, s, &fty, range, depth + 1) {
                continue;
            }
            let v = self.deref(s);
            self.emit(StmtKind::Assign { addr: d, value: v }, range);
        }
        true
    }

    /// Spread an initializer list over the fields or elements at `addr`. Pointer fields a
    /// struct initializer does not mention are zero, as C says.
    pub(super) fn init_list(
        &mut self,
        addr: ExprId,
        ty: &Type,
        list: Node,
        range: TextRange,
        depth: u32,
    ) {
        let mut c = list.walk();
        let items: Vec<Node> = list
            .named_children(&mut c)
            .filter(|k| k.kind() != "comment")
            .collect();
        if depth > MAX_STRUCT_EXPANSION + 4 {
            self.fallback(TextRange::of_node(&list), "initializer nested too deeply");
            let u = self.unknown(ty.clone());
            self.emit(StmtKind::Assign { addr, value: u }, range);
            return;
        }
        match ty {
            Type::Struct(_) | Type::Union(_) => {
                let Some(def) = self.struct_def(ty) else {
                    for it in items {
                        let v = it.child_by_field_name("value").unwrap_or(it);
                        self.effect(v);
                    }
                    let u = self.unknown(ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                    return;
                };
                let mut next = 0usize;
                let mut mentioned: FxHashSet<String> = FxHashSet::default();
                for it in items {
                    let (field_name, value) = if it.kind() == "initializer_pair" {
                        let d = it.child_by_field_name("designator");
                        let name = d
                            .filter(|d| d.kind() == "field_designator")
                            .and_then(|d| d.named_child(0))
                            .map(|f| text(f, self.src).to_string());
                        let Some(v) = it.child_by_field_name("value") else {
                            continue;
                        };
                        match name {
                            Some(n) => {
                                next = def.fields.iter().position(|f| f.name == n).unwrap_or(0) + 1;
                                (Some(n), v)
                            }
                            None => {
                                // Nested designators (`.a.b = x`, `[i].f = y`).
                                self.fallback(
                                    TextRange::of_node(&it),
                                    "nested designator in initializer",
                                );
                                let v2 = self.rvalue(v);
                                let u = self.unknown(Type::Unknown);
                                let _ = v2;
                                self.emit(StmtKind::Assign { addr, value: u }, range);
                                continue;
                            }
                        }
                    } else {
                        let n = def.fields.get(next).map(|f| f.name.clone());
                        next += 1;
                        (n, it)
                    };
                    let Some(fname) = field_name else {
                        self.effect(value);
                        continue;
                    };
                    mentioned.insert(fname.clone());
                    let fty = self.field_type(ty, &fname);
                    let faddr = self.field(addr, &fname);
                    if value.kind() == "initializer_list" {
                        self.init_list(faddr, &fty, value, range, depth + 1);
                    } else {
                        self.assign_into(faddr, &fty, value, range);
                    }
                    if def.is_union {
                        break;
                    }
                }
                if !def.is_union {
                    for f in &def.fields {
                        if mentioned.contains(&f.name) {
                            continue;
                        }
                        let fty = self.resolve(&f.ty);
                        if fty.is_pointer() {
                            let faddr = self.field(addr, &f.name);
                            let zero = self.int(0);
                            self.emit(
                                StmtKind::Assign {
                                    addr: faddr,
                                    value: zero,
                                },
                                range,
                            );
                        }
                    }
                }
            }
            Type::Array(elem, _) => {
                if items.len() > MAX_INIT_ELEMENTS {
                    self.fallback(TextRange::of_node(&list), "very large array initializer");
                    let u = self.unknown(ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                    return;
                }
                let elem = (**elem).clone();
                if let [only] = items.as_slice()
                    && matches!(only.kind(), "string_literal" | "concatenated_string")
                    && !elem.is_pointer()
                {
                    // `char buf[8] = { "abc" }`: braces around a string initializer.
                    let only = *only;
                    self.assign_into(addr, ty, only, range);
                    return;
                }
                let mut idx: i64 = 0;
                for it in items {
                    let value = if it.kind() == "initializer_pair" {
                        if let Some(d) = it.child_by_field_name("designator")
                            && d.kind() == "subscript_designator"
                            && let Some(i) = d
                                .named_child(0)
                                .and_then(|x| parse_int_literal(text(x, self.src)))
                        {
                            idx = i;
                        }
                        match it.child_by_field_name("value") {
                            Some(v) => v,
                            None => continue,
                        }
                    } else {
                        it
                    };
                    let i = self.int(idx);
                    let eaddr = self.index_addr(addr, i);
                    if value.kind() == "initializer_list" {
                        self.init_list(eaddr, &elem, value, range, depth + 1);
                    } else {
                        self.assign_into(eaddr, &elem, value, range);
                    }
                    idx += 1;
                }
            }
            _ => {
                // `int x = { 0 };`, or a type we could not resolve: the first item is the value.
                match items.first() {
                    Some(first) if items.len() == 1 && first.kind() != "initializer_pair" => {
                        let f = *first;
                        self.assign_into(addr, ty, f, range)
                    }
                    _ => {
                        for it in items {
                            let v = it.child_by_field_name("value").unwrap_or(it);
                            self.effect(v);
                        }
                        let u = self.unknown(ty.clone());
                        self.emit(StmtKind::Assign { addr, value: u }, range);
                    }
                }
            }
        }
    }
}
