//! Values and addresses: the expression arena's constructors, types as the lowering sees them
//! (block-scope typedefs and structs), rvalues, lvalues, and the static type of an expression.

use super::cfg::Guard;
use super::{Binding, Builder};
use crate::ir::types::{StructDef, Type, char_literal_value, parse_int_literal};
use crate::ir::{BinOp, Expr, ExprId, ExprKind, LocalId, StmtKind, Symbol};
use crate::syntax::TextRange;
use crate::syntax::ts::{last_named, operator, text};
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn expr(&mut self, kind: ExprKind, ty: Type) -> ExprId {
        let ty = self.ctx.qualified(ty);
        self.exprs.intern(Expr { kind, ty })
    }

    pub(super) fn int(&mut self, v: i64) -> ExprId {
        self.numbers.insert(v);
        self.expr(ExprKind::Int(v), Type::Int)
    }

    /// A C library constant (`EOF`): its value, and its name for display.
    fn named_int(&mut self, v: i64, name: &str) -> ExprId {
        let e = self
            .named_constants
            .entry(v)
            .or_insert_with(|| Some(name.to_string()));
        if e.as_deref() != Some(name) {
            *e = None;
        }
        self.expr(ExprKind::Int(v), Type::Int)
    }

    pub(super) fn scalar(&mut self) -> ExprId {
        self.expr(ExprKind::Scalar, Type::Int)
    }

    pub(super) fn unknown(&mut self, ty: Type) -> ExprId {
        self.expr(ExprKind::Unknown, ty)
    }

    pub(super) fn ty(&self, e: ExprId) -> Type {
        self.exprs.ty(e).clone()
    }

    pub(super) fn addr_of_local(&mut self, l: LocalId) -> ExprId {
        let ty = Type::pointer_to(self.locals[l.0 as usize].ty.clone());
        self.expr(ExprKind::Addr(Symbol::Local(l)), ty)
    }

    pub(super) fn addr_of_global(&mut self, name: &str, ty: Type) -> ExprId {
        self.expr(
            ExprKind::Addr(Symbol::Global(name.to_string())),
            Type::pointer_to(ty),
        )
    }

    pub(super) fn deref(&mut self, addr: ExprId) -> ExprId {
        let ty = match self.exprs.ty(addr) {
            Type::Pointer(t) => (**t).clone(),
            _ => Type::Unknown,
        };
        self.expr(ExprKind::Deref(addr), ty)
    }

    pub(super) fn field(&mut self, base_addr: ExprId, name: &str) -> ExprId {
        let sty = match self.exprs.ty(base_addr) {
            Type::Pointer(t) => (**t).clone(),
            _ => Type::Unknown,
        };
        let fty = self.field_type(&sty, name);
        self.expr(
            ExprKind::Field(base_addr, name.to_string()),
            Type::pointer_to(fty),
        )
    }

    pub(super) fn struct_def(&self, ty: &Type) -> Option<StructDef> {
        let tag = ty.struct_tag()?;
        if let Some(s) = self.local_structs.iter().rev().find(|s| s.tag == tag) {
            return Some(s.clone());
        }
        let q = self.ctx.qualify(ty);
        self.ctx.env.structs.get(q.struct_tag()?).cloned()
    }

    /// As `TypeEnv::field_type`: a member declared in several arms of an undecided `#if`
    /// has the type they agree on, or none.
    pub(super) fn field_type(&self, sty: &Type, name: &str) -> Type {
        match self.struct_def(sty) {
            Some(def) => def.member_type(name, |t| self.resolve(t)),
            None => Type::Unknown,
        }
    }

    /// Whether operand `n` of pointer arithmetic is a cast of `value` to another pointer
    /// type (`(char *) p`), so that the arithmetic counts in another element type than the
    /// value's. Casts are transparent, so `(char *) p + 8` would otherwise be `p + 8`.
    pub(super) fn casts_unit(&mut self, mut n: Node, value: ExprId) -> bool {
        while n.kind() == "parenthesized_expression" {
            match last_named(n) {
                Some(inner) => n = inner,
                None => return false,
            }
        }
        if n.kind() != "cast_expression" {
            return false;
        }
        let Some(target) = n
            .child_by_field_name("type")
            .map(|t| self.descriptor_type(t))
        else {
            return false;
        };
        let target = decayed(&self.resolve(&target));
        let own = decayed(&self.resolve(&self.ty(value)));
        target.is_pointer_like() && target != own
    }

    /// Whether `e` is a pointer moved by an untracked number of bytes (`(char *) p - off`)
    /// and `target` a pointer to a struct that holds `e`'s pointee as a member, or to such a
    /// member of `e`'s pointee: `container_of` and its converse.
    fn moves_within_struct(&self, e: ExprId, target: &Type) -> bool {
        let ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) = *self.exprs.kind(e) else {
            return false;
        };
        let scalar = |x: ExprId| matches!(self.exprs.kind(x), ExprKind::Scalar);
        if !(scalar(a) || scalar(b)) {
            return false;
        }
        let (Type::Pointer(to), Type::Pointer(from)) = (
            decayed(&self.resolve(target)),
            decayed(&self.resolve(&self.ty(e))),
        ) else {
            return false;
        };
        let (to, from) = (self.resolve(&to), self.resolve(&from));
        to != from && (self.embeds(&to, &from, 0) || self.embeds(&from, &to, 0))
    }

    /// Whether struct `outer` holds a value of type `inner` as a member (of a member, or an
    /// element of an array member), through structs only: a union's members overlap.
    fn embeds(&self, outer: &Type, inner: &Type, depth: u32) -> bool {
        if depth > 4 || !matches!(outer, Type::Struct(_)) {
            return false;
        }
        let Some(def) = self.struct_def(outer) else {
            return false;
        };
        if def.is_union {
            return false;
        }
        def.fields.iter().any(|f| {
            let mut t = self.resolve(&f.ty);
            while let Type::Array(e, _) = t {
                t = self.resolve(&e);
            }
            t == *inner || self.embeds(&t, inner, depth + 1)
        })
    }

    /// `base ⊕ index` where base is a pointer or array address: the element address.
    pub(super) fn index_addr(&mut self, base: ExprId, index: ExprId) -> ExprId {
        let elem = elem_type(self.exprs.ty(base));
        self.expr(
            ExprKind::Binary(BinOp::Add, base, index),
            Type::pointer_to(elem),
        )
    }

    pub(super) fn binary(&mut self, op: BinOp, l: ExprId, r: ExprId) -> ExprId {
        let lt = self.ty(l);
        let rt = self.ty(r);
        let ty = match op {
            BinOp::Compare => Type::Int,
            BinOp::Sub if lt.is_pointer_like() && rt.is_pointer_like() => Type::Int,
            BinOp::Add | BinOp::Sub if lt.is_pointer_like() => decayed(&lt),
            BinOp::Add if rt.is_pointer_like() => decayed(&rt),
            _ if lt == Type::Float || rt == Type::Float => Type::Float,
            _ => Type::Int,
        };
        self.expr(ExprKind::Binary(op, l, r), ty)
    }

    pub(super) fn resolve(&self, ty: &Type) -> Type {
        // Block-scope typedefs shadow the workspace's.
        if let Type::Named(n) = ty {
            for s in self.scopes.iter().rev() {
                if let Some(t) = s.typedefs.get(n) {
                    return self.ctx.env.resolve(t);
                }
            }
        }
        let ty: &Type = &self.ctx.qualify(ty);
        let t = self.ctx.env.resolve(ty);
        let t = self.ctx.qualified(t);
        match (&t, ty) {
            (Type::Pointer(inner), _) if matches!(**inner, Type::Named(_)) => {
                Type::pointer_to(self.resolve(inner))
            }
            _ => t,
        }
    }

    /// The value of an expression.
    pub(super) fn rvalue(&mut self, n: Node) -> ExprId {
        self.guarded(
            n,
            Guard::VALUE,
            |b| b.rvalue_inner(n),
            |b| b.unknown(Type::Unknown),
        )
    }

    fn rvalue_inner(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let src = self.src;
        match n.kind() {
            "number_literal" => match parse_int_literal(text(n, src)) {
                Some(v) => self.int(v),
                None => self.expr(ExprKind::Scalar, Type::Float),
            },
            "char_literal" => match char_literal_value(text(n, src)) {
                Some(v) => self.int(v),
                None => self.scalar(),
            },
            "true" => self.int(1),
            "false" | "null" => self.int(0),
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                let k = self.string_literals;
                self.string_literals += 1;
                self.expr(
                    ExprKind::Addr(Symbol::StringLit(k)),
                    Type::pointer_to(Type::Int),
                )
            }
            "identifier" => self.identifier_value(n),
            "field_expression" | "subscript_expression" => {
                let a = self.lvalue(n);
                self.value_at(a)
            }
            "pointer_expression" => {
                let op = operator(n, src);
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                if op == "&" && arg.kind() == "pointer_expression" && operator(arg, src) == "&" {
                    // GNU `&&label` (parsed as `&(&label)`): a code address, never heap.
                    return self.expr(ExprKind::Scalar, Type::pointer_to(Type::Void));
                }
                if op == "&" {
                    let a = self.lvalue(arg);
                    self.mark_address_taken(a);
                    a
                } else {
                    let p = self.rvalue(arg);
                    // `*fp` for a function pointer is the function pointer itself.
                    if let Type::Pointer(t) = self.exprs.ty(p)
                        && matches!(**t, Type::Function(_))
                    {
                        return p;
                    }
                    self.value_at(p)
                }
            }
            "call_expression" => self.call_value(n),
            "assignment_expression" => {
                let a = self.assignment(n);
                self.deref(a)
            }
            "update_expression" => {
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                let addr = self.lvalue(arg);
                let prefix = text(n, src).trim_start().starts_with(['+', '-']);
                if prefix {
                    self.increment(addr, n, range);
                    self.deref(addr)
                } else {
                    // Postfix: the old value lives in a temporary.
                    let ty = match self.exprs.ty(addr) {
                        Type::Pointer(t) => (**t).clone(),
                        _ => Type::Unknown,
                    };
                    let tmp = self.new_temp(ty, n);
                    let taddr = self.addr_of_local(tmp);
                    let old = self.deref(addr);
                    self.emit(
                        StmtKind::Assign {
                            addr: taddr,
                            value: old,
                        },
                        range,
                    );
                    self.increment(addr, n, range);
                    self.deref(taddr)
                }
            }
            "binary_expression" => {
                let op = operator(n, src);
                match op {
                    "&&" | "||" | "==" | "!=" | "<" | "<=" | ">" | ">=" => self.cond_value(n),
                    _ => {
                        let (Some(l), Some(r)) = (
                            n.child_by_field_name("left"),
                            n.child_by_field_name("right"),
                        ) else {
                            return self.unknown(Type::Unknown);
                        };
                        let lv = self.rvalue(l);
                        let rv = self.rvalue(r);
                        let bop = BinOp::from_c_operator(op).unwrap_or(BinOp::Compare);
                        // Pointer arithmetic on a cast to another pointer type counts in
                        // the cast's element type, which the value (casts are transparent)
                        // does not carry: `(char *) p + 8` is not `p + 8`. Its offset is
                        // an untracked number.
                        match bop {
                            BinOp::Add | BinOp::Sub
                                if self.ty(lv).is_pointer_like()
                                    && !self.ty(rv).is_pointer_like()
                                    && self.casts_unit(l, lv) =>
                            {
                                let k = self.scalar();
                                self.binary(bop, lv, k)
                            }
                            BinOp::Add
                                if self.ty(rv).is_pointer_like() && self.casts_unit(r, rv) =>
                            {
                                let k = self.scalar();
                                self.binary(bop, k, rv)
                            }
                            _ => self.binary(bop, lv, rv),
                        }
                    }
                }
            }
            "unary_expression" => {
                let op = operator(n, src);
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                match op {
                    "!" => self.cond_value(n),
                    "+" => self.rvalue(arg),
                    "-" => {
                        if arg.kind() == "number_literal"
                            && let Some(v) = parse_int_literal(text(arg, src))
                        {
                            return self.int(-v);
                        }
                        let v = self.rvalue(arg);
                        let zero = self.int(0);
                        self.binary(BinOp::Sub, zero, v)
                    }
                    _ => {
                        let v = self.rvalue(arg);
                        let m1 = self.int(-1);
                        self.binary(BinOp::BitXor, v, m1)
                    }
                }
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                match kids.as_slice() {
                    [one] if one.kind() == "compound_statement" => self.statement_expr(*one),
                    [.., last] => {
                        let last = *last;
                        for k in &kids[..kids.len() - 1] {
                            self.effect(*k);
                        }
                        self.rvalue(last)
                    }
                    [] => self.unknown(Type::Unknown),
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                match n.child_by_field_name("right") {
                    Some(r) => self.rvalue(r),
                    None => self.unknown(Type::Unknown),
                }
            }
            "cast_expression" => {
                // Casts are transparent: the value keeps its identity (and its type), so hit
                // and miss facts about it survive the cast.
                let target = n
                    .child_by_field_name("type")
                    .map(|t| self.descriptor_type(t))
                    .unwrap_or_default();
                match n.child_by_field_name("value") {
                    Some(v) => {
                        let e = self.rvalue(v);
                        if self.moves_within_struct(e, &target) {
                            // `(struct item *)((char *) link - offsetof(struct item, link))`:
                            // a new pointer, to the struct around the member (or to a member),
                            // of the cast's type. Left with the member's type, the struct's
                            // fields read through it would be the member type's, and the
                            // types would have to share memory (one collapsed class for
                            // every struct linked into an intrusive list).
                            let kind = self.exprs.kind(e).clone();
                            return self.expr(kind, target);
                        }
                        if *self.exprs.ty(e) == Type::Unknown && target != Type::Unknown {
                            // Re-type a value we knew nothing about: the cast is the best
                            // information there is.
                            let kind = self.exprs.kind(e).clone();
                            return self.expr(kind, target);
                        }
                        e
                    }
                    None => self.unknown(target),
                }
            }
            "conditional_expression" => {
                let ty = self.static_type(n);
                let tmp = self.new_temp(ty.clone(), n);
                let a = self.addr_of_local(tmp);
                self.assign_into(a, &ty, n, range);
                self.deref(a)
            }
            "sizeof_expression" | "alignof_expression" | "offsetof_expression" => self.scalar(),
            "compound_literal_expression" => {
                let a = self.compound_literal(n);
                self.value_at(a)
            }
            "initializer_list" => {
                // Only meaningful in an initializer; as a value, evaluate its parts.
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    self.effect(k);
                }
                self.unknown(Type::Unknown)
            }
            "generic_expression" => {
                self.fallback(range, "_Generic selection");
                self.unknown(Type::Unknown)
            }
            "gnu_asm_expression" => {
                self.opaque(n, "inline assembly");
                self.unknown(Type::Unknown)
            }
            "extension_expression" => match n.named_child(0) {
                Some(inner) => self.rvalue(inner),
                None => self.unknown(Type::Unknown),
            },
            "comment" => self.scalar(),
            other => {
                self.unsupported(n, format!("unsupported expression `{other}`"));
                self.unknown(Type::Unknown)
            }
        }
    }

    /// The value stored at `addr`: arrays decay to their address instead of being read.
    pub(super) fn value_at(&mut self, addr: ExprId) -> ExprId {
        match self.exprs.ty(addr) {
            Type::Pointer(t) if matches!(**t, Type::Array(..) | Type::Function(_)) => addr,
            _ => self.deref(addr),
        }
    }

    pub(super) fn identifier_value(&mut self, n: Node) -> ExprId {
        let name = text(n, self.src);
        match name {
            "NULL" => return self.expr(ExprKind::Int(0), Type::pointer_to(Type::Void)),
            "true" | "TRUE" => return self.int(1),
            "false" | "FALSE" => return self.int(0),
            // A type keyword as a macro argument (`container_of(p, struct s, m)`).
            "struct" | "union" | "enum" | "int" | "char" | "short" | "long" | "unsigned"
            | "signed" | "float" | "double" | "void" | "const" | "volatile" => {
                return self.scalar();
            }
            _ => {}
        }
        match self.lookup(name) {
            Some(Binding::Local(l)) => {
                let a = self.addr_of_local(l);
                self.value_at(a)
            }
            Some(Binding::Global(g, ty)) => {
                let a = self.addr_of_global(&g, ty);
                self.value_at(a)
            }
            None => {
                if let Some(ty) = self.ctx.env.globals.get(name).cloned() {
                    let ty = self.resolve(&ty);
                    let a = self.addr_of_global(name, ty);
                    return self.value_at(a);
                }
                if let Some(sig) = self.ctx.env.functions.get(name).cloned() {
                    let sig = self.resolve_sig(&sig);
                    return self.expr(
                        ExprKind::Addr(Symbol::Function(name.to_string())),
                        Type::pointer_to(Type::Function(Box::new(sig))),
                    );
                }
                if let Some(c) = self.ctx.env.constants.get(name) {
                    return match c {
                        Some(v) => self.int(*v),
                        None => self.scalar(),
                    };
                }
                // A constant of the C library's headers (`EINVAL`, `EOF`), which are not
                // parsed.
                if let Some(v) = crate::ir::library::known_constant(name) {
                    return self.named_int(v, name);
                }
                // Declared in a header we cannot see (or a macro): read it as a global of
                // unknown type. Treating it as a number could hide a pointer and wrongly
                // contradict a probe.
                let a = self.addr_of_global(name, Type::Unknown);
                self.deref(a)
            }
        }
    }

    /// GNU `({ stmts; e; })`: lower the statements, the last expression is the value.
    fn statement_expr(&mut self, block: Node) -> ExprId {
        self.push_scope();
        let mut c = block.walk();
        let kids: Vec<Node> = block.named_children(&mut c).collect();
        let mut value = None;
        for (i, k) in kids.iter().enumerate() {
            if i + 1 == kids.len() && k.kind() == "expression_statement" {
                value = k.named_child(0).map(|e| self.rvalue(e));
            } else {
                self.stmt(*k);
            }
        }
        let v = value.unwrap_or_else(|| self.scalar());
        // The value may read a block local: copy it out before the scope ends.
        let ty = self.ty(v);
        let tmp = self.new_temp(ty, block);
        let a = self.addr_of_local(tmp);
        self.ensure_reachable_point(TextRange::of_node(&block));
        self.emit(
            StmtKind::Assign { addr: a, value: v },
            TextRange::of_node(&block),
        );
        let end = TextRange::of_node(&block);
        self.pop_scope(TextRange::new(end.end.saturating_sub(1), end.end));
        self.deref(a)
    }

    fn compound_literal(&mut self, n: Node) -> ExprId {
        let ty = n
            .child_by_field_name("type")
            .map(|t| self.descriptor_type(t))
            .unwrap_or_default();
        let tmp = self.new_temp(ty.clone(), n);
        let a = self.addr_of_local(tmp);
        if let Some(v) = n.child_by_field_name("value") {
            self.init_list(a, &ty, v, TextRange::of_node(&n), 0);
        }
        a
    }

    /// The type an expression would have, without lowering it (for `?:` temporaries).
    pub(super) fn static_type(&mut self, n: Node) -> Type {
        match n.kind() {
            "identifier" => {
                let name = text(n, self.src);
                match self.lookup(name) {
                    Some(Binding::Local(l)) => self.locals[l.0 as usize].ty.clone(),
                    Some(Binding::Global(_, t)) => t,
                    None => {
                        if let Some(t) = self.ctx.env.globals.get(name) {
                            self.resolve(t)
                        } else if let Some(sig) = self.ctx.env.functions.get(name) {
                            let sig = self.resolve_sig(sig);
                            Type::pointer_to(Type::Function(Box::new(sig)))
                        } else if name == "NULL" {
                            Type::pointer_to(Type::Void)
                        } else if self.ctx.env.constants.contains_key(name) {
                            Type::Int
                        } else {
                            Type::Unknown
                        }
                    }
                }
            }
            "call_expression" => {
                if let Some(value) = self.typeof_call(n) {
                    return value.map(|v| self.static_type(v)).unwrap_or_default();
                }
                let callee = n.child_by_field_name("function");
                match callee.filter(|c| c.kind() == "identifier") {
                    Some(c) if self.is_direct_callee(text(c, self.src)) => {
                        self.call_return_type(text(c, self.src))
                    }
                    _ => self.indirect_return_type(callee),
                }
            }
            "pointer_expression" => {
                let Some(arg) = n.child_by_field_name("argument") else {
                    return Type::Unknown;
                };
                let t = self.static_type(arg);
                if operator(n, self.src) == "&" {
                    return Type::pointer_to(t);
                }
                match t {
                    // `*fp` for a function pointer is the function pointer itself.
                    Type::Pointer(inner) if matches!(*inner, Type::Function(_)) => {
                        Type::Pointer(inner)
                    }
                    Type::Pointer(inner) | Type::Array(inner, _) => *inner,
                    _ => Type::Unknown,
                }
            }
            "field_expression" => {
                let (Some(arg), Some(f)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                ) else {
                    return Type::Unknown;
                };
                let base = self.static_type(arg);
                let arrow = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src) == "->")
                    .unwrap_or(false);
                let sty = match base {
                    Type::Pointer(inner) | Type::Array(inner, _) if arrow => *inner,
                    t if !arrow => t,
                    _ => Type::Unknown,
                };
                self.field_type(&sty, text(f, self.src))
            }
            "subscript_expression" => {
                let (Some(a), Some(i)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("index"),
                ) else {
                    return Type::Unknown;
                };
                let base = self.static_type(a);
                let base = if base.is_pointer_like() {
                    base
                } else {
                    self.static_type(i)
                };
                base.pointee().cloned().unwrap_or_default()
            }
            "assignment_expression" => match n.child_by_field_name("left") {
                Some(l) => self.static_type(l),
                None => Type::Unknown,
            },
            "conditional_expression" => {
                let a = n
                    .child_by_field_name("consequence")
                    .map(|c| self.static_type(c))
                    .unwrap_or_default();
                let b = n
                    .child_by_field_name("alternative")
                    .map(|c| self.static_type(c))
                    .unwrap_or_default();
                // `c ? p : 0` has the pointer's type, not the constant's.
                match (&a, &b) {
                    (_, b) if b.is_pointer_like() && !a.is_pointer_like() => decayed(b),
                    (Type::Unknown, _) => b,
                    _ => decayed(&a),
                }
            }
            "compound_literal_expression" => n
                .child_by_field_name("type")
                .map(|t| self.descriptor_type(t))
                .unwrap_or_default(),
            "string_literal" | "concatenated_string" => Type::pointer_to(Type::Int),
            "number_literal" => match parse_int_literal(text(n, self.src)) {
                Some(_) => Type::Int,
                None => Type::Float,
            },
            "char_literal" | "sizeof_expression" => Type::Int,
            "null" => Type::pointer_to(Type::Void),
            "cast_expression" => n
                .child_by_field_name("type")
                .map(|t| self.descriptor_type(t))
                .unwrap_or_default(),
            "parenthesized_expression" => match last_named(n) {
                Some(i) => self.static_type(i),
                None => Type::Unknown,
            },
            _ => Type::Unknown,
        }
    }

    /// The address an lvalue expression designates.
    pub(super) fn lvalue(&mut self, n: Node) -> ExprId {
        self.guarded(
            n,
            Guard::ADDRESS,
            |b| b.lvalue_inner(n),
            |b| b.unknown(Type::pointer_to(Type::Unknown)),
        )
    }

    fn lvalue_inner(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let src = self.src;
        match n.kind() {
            "identifier" => {
                let name = text(n, src);
                match self.lookup(name) {
                    Some(Binding::Local(l)) => self.addr_of_local(l),
                    Some(Binding::Global(g, ty)) => self.addr_of_global(&g, ty),
                    None => {
                        if let Some(sig) = self.ctx.env.functions.get(name).cloned() {
                            let sig = self.resolve_sig(&sig);
                            return self.expr(
                                ExprKind::Addr(Symbol::Function(name.to_string())),
                                Type::pointer_to(Type::Function(Box::new(sig))),
                            );
                        }
                        let ty = self
                            .ctx
                            .env
                            .globals
                            .get(name)
                            .map(|t| self.resolve(t))
                            .unwrap_or_default();
                        self.addr_of_global(name, ty)
                    }
                }
            }
            "field_expression" => {
                let (Some(arg), Some(f)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                ) else {
                    return self.unknown(Type::pointer_to(Type::Unknown));
                };
                let fname = text(f, src).to_string();
                let arrow = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, src) == "->")
                    .unwrap_or_else(|| text(n, src).contains("->"));
                let base = if arrow {
                    self.rvalue(arg)
                } else {
                    self.lvalue(arg)
                };
                // `arr->f` on an array is `arr[0].f`: the array's address is the base.
                self.field(base, &fname)
            }
            "subscript_expression" => {
                let (Some(a), Some(i)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("index"),
                ) else {
                    return self.unknown(Type::pointer_to(Type::Unknown));
                };
                let base = self.rvalue(a);
                let idx = self.rvalue(i);
                // `i[a]` is legal C: keep the pointer on the left.
                let (p, pn, k) = if !self.exprs.ty(base).is_pointer_like()
                    && self.exprs.ty(idx).is_pointer_like()
                {
                    (idx, i, base)
                } else {
                    (base, a, idx)
                };
                if self.casts_unit(pn, p) {
                    // `((char *) p)[8]`: an element of the cast's type, at an untracked offset.
                    let k = self.scalar();
                    return self.index_addr(p, k);
                }
                self.index_addr(p, k)
            }
            "pointer_expression" if operator(n, src) == "*" => {
                match n.child_by_field_name("argument") {
                    Some(a) => self.rvalue(a),
                    None => self.unknown(Type::pointer_to(Type::Unknown)),
                }
            }
            "parenthesized_expression" => match last_named(n) {
                Some(inner) => {
                    let mut c = n.walk();
                    let kids: Vec<Node> = n.named_children(&mut c).collect();
                    for k in &kids[..kids.len().saturating_sub(1)] {
                        self.effect(*k);
                    }
                    self.lvalue(inner)
                }
                None => self.unknown(Type::pointer_to(Type::Unknown)),
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(v) => self.lvalue(v),
                None => self.unknown(Type::pointer_to(Type::Unknown)),
            },
            "compound_literal_expression" => self.compound_literal(n),
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                match n.child_by_field_name("right") {
                    Some(r) => self.lvalue(r),
                    None => self.unknown(Type::pointer_to(Type::Unknown)),
                }
            }
            "string_literal" | "concatenated_string" => self.rvalue(n),
            "call_expression" | "assignment_expression" | "conditional_expression" => {
                // A struct-valued rvalue used as an object (`f().x`): materialize it.
                let v = self.rvalue(n);
                let ty = self.ty(v);
                if let ExprKind::Deref(a) = *self.exprs.kind(v) {
                    return a;
                }
                let tmp = self.new_temp(ty.clone(), n);
                let a = self.addr_of_local(tmp);
                self.emit(StmtKind::Assign { addr: a, value: v }, range);
                a
            }
            other => {
                self.unsupported(n, format!("unsupported lvalue `{other}`"));
                self.unknown(Type::pointer_to(Type::Unknown))
            }
        }
    }
}

fn elem_type(t: &Type) -> Type {
    match t {
        Type::Pointer(inner) => match &**inner {
            Type::Array(e, _) => (**e).clone(),
            other => other.clone(),
        },
        Type::Array(e, _) => (**e).clone(),
        _ => Type::Unknown,
    }
}

/// The pointer type an array-or-pointer value has in arithmetic.
fn decayed(t: &Type) -> Type {
    match t {
        Type::Array(e, _) => Type::Pointer(e.clone()),
        Type::Pointer(inner) => match &**inner {
            Type::Array(e, _) => Type::Pointer(e.clone()),
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}
