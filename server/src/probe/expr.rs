//! Expressions as the engine sees them: the paper's `n | a | *e | e.f | e0 ⊕ e1`, hash-consed
//! across every function a probe visits. Locals are qualified by their function, so facts that
//! cross a call boundary stay unambiguous. Map/Unmap rename the caller's locals to `Frozen`
//! symbols one frame up and back (instead of the paper's Remove Info), so recursion keeps
//! the facts about every frame apart.

use super::FuncId;
use crate::ir::{self, BinOp, ExprId, ExprKind, FunctionIr, LocalId, Symbol, Type, TypeEnv};
use crate::regions::{Region, RegionNames, RegionSet, TypeClasses, VarPath, VarRoot};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// An expression id in the probe's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct E(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    Local(FuncId, LocalId),
    Global(u32),
    Function(u32),
    StringLit(FuncId, u32),
    /// The shadow of formal `i` while unmapping a call (paper Figure 5).
    Shadow(u32),
    /// A local of a caller frame `depth` calls up, seen from inside a callee. Map renames the
    /// caller's locals to these instead of removing them (the paper's Remove Info): the
    /// callee cannot assign them, so facts about them stay true, and heap paths through them
    /// are handled by the ordinary region rules. Unmap renames them back.
    Frozen(u8, FuncId, LocalId),
}

/// Frames deeper than this are forgotten (facts about them are dropped, which is sound).
pub const MAX_FROZEN_DEPTH: u8 = 4;
/// The depth of `Frozen` symbols of one caller frame farther up than every frame a fact
/// names by number, kept while the frames between are forgotten (deep in a recursion; see
/// `Engine::compress_frames`). Map keeps it as is, Unmap gives it back its number.
pub const ANCESTOR: u8 = u8::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EKind {
    Int(i64),
    /// A number whose value is not tracked.
    Num,
    Addr(Sym),
    Deref(E),
    Field(E, u32),
    Bin(BinOp, E, E),
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ENode {
    kind: EKind,
    ty: TyId,
}

/// The largest expression (nodes as a tree) a fact may hold. Real code's pointer expressions
/// and conditions are far smaller; only repeated substitution through arithmetic grows past it.
pub const MAX_EXPR_SIZE: u32 = 256;

/// The arena, the type table and the region computations of one probe run.
pub struct Arena<'p> {
    nodes: Vec<ENode>,
    /// Each node's size as a tree (saturating), parallel to `nodes`: bounded by
    /// `MAX_EXPR_SIZE`, so every walk of an expression is.
    sizes: Vec<u32>,
    /// Set when an expression larger than `MAX_EXPR_SIZE` was asked for (see `mk`).
    overflow: bool,
    index: FxHashMap<ENode, E>,
    types: Vec<Type>,
    type_index: FxHashMap<Type, TyId>,
    translated: FxHashMap<(FuncId, ExprId), E>,
    pt_cache: FxHashMap<E, RegionSet>,
    deref_cache: FxHashMap<E, E>,
    reads_cache: FxHashMap<E, RegionSet>,
    pub names: RegionNames,
    strings: Vec<String>,
    string_index: FxHashMap<String, u32>,
    env: &'p TypeEnv,
    classes: &'p TypeClasses,
    /// Which locals of visited functions have their address taken.
    address_taken: FxHashMap<(FuncId, LocalId), bool>,
    /// The struct types of members read through a base without members (`void *`), after a
    /// substitution put that base in place of a struct pointer ([`Arena::rebuilt_field`]).
    member_of: FxHashMap<E, SmallVec<[TyId; 1]>>,
    /// Locals that never hold a pointer (`probe::scalar_locals`): their variable regions stay
    /// out of the region set.
    scalar_locals: FxHashSet<(FuncId, LocalId)>,
}

impl<'p> Arena<'p> {
    pub fn new(env: &'p TypeEnv, classes: &'p TypeClasses) -> Self {
        Arena {
            nodes: vec![],
            sizes: vec![],
            overflow: false,
            index: FxHashMap::default(),
            types: vec![],
            type_index: FxHashMap::default(),
            translated: FxHashMap::default(),
            pt_cache: FxHashMap::default(),
            deref_cache: FxHashMap::default(),
            reads_cache: FxHashMap::default(),
            names: RegionNames::default(),
            strings: vec![],
            string_index: FxHashMap::default(),
            env,
            classes,
            address_taken: FxHashMap::default(),
            member_of: FxHashMap::default(),
            scalar_locals: FxHashSet::default(),
        }
    }

    pub fn env(&self) -> &TypeEnv {
        self.env
    }

    pub fn string(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }
    pub fn string_of(&self, i: u32) -> &str {
        &self.strings[i as usize]
    }

    pub fn ty_id(&mut self, t: &Type) -> TyId {
        if let Some(&i) = self.type_index.get(t) {
            return i;
        }
        let i = TyId(self.types.len() as u32);
        self.types.push(t.clone());
        self.type_index.insert(t.clone(), i);
        i
    }
    pub fn ty(&self, e: E) -> &Type {
        &self.types[self.nodes[e.0 as usize].ty.0 as usize]
    }
    pub fn kind(&self, e: E) -> &EKind {
        &self.nodes[e.0 as usize].kind
    }

    /// `l - r` as the engine keeps the difference of two integer values: the operand with the
    /// smaller id first, so that a test and its opposite (`a->capacity > a->size`, then
    /// `a->size >= a->capacity`) constrain one expression. `true` when the operands were
    /// swapped: a constraint `l - r rel k` is then `diff rel.flip() -k`.
    pub fn ordered_difference(&mut self, l: E, r: E) -> (E, bool) {
        let (a, b, swapped) = if l.0 < r.0 {
            (l, r, false)
        } else {
            (r, l, true)
        };
        (self.mk(EKind::Bin(BinOp::Sub, a, b), &Type::Int), swapped)
    }

    /// `e` as a value plus a known offset: `x + 3` is `(x, 3)`, `x - 1` is `(x, -1)`, `5` is
    /// `(None, 5)`, anything else is `(e, 0)`.
    pub fn offset_of(&self, e: E) -> (Option<E>, i64) {
        let mut base = e;
        let mut k: i64 = 0;
        for _ in 0..16 {
            match *self.kind(base) {
                EKind::Int(v) => return (None, k.saturating_add(v)),
                EKind::Bin(BinOp::Add, x, y) => match (*self.kind(x), *self.kind(y)) {
                    (_, EKind::Int(v)) => {
                        k = k.saturating_add(v);
                        base = x;
                    }
                    (EKind::Int(v), _) => {
                        k = k.saturating_add(v);
                        base = y;
                    }
                    _ => break,
                },
                EKind::Bin(BinOp::Sub, x, y) => match *self.kind(y) {
                    EKind::Int(v) => {
                        k = k.saturating_sub(v);
                        base = x;
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        (Some(base), k)
    }

    pub fn mk(&mut self, kind: EKind, ty: &Type) -> E {
        let kind = match kind {
            EKind::Field(b, n) => EKind::Field(self.uncast_base(b, n), n),
            // Arithmetic on two known numbers is a known number (`-EINVAL` lowers to
            // `0 - 22`; a substitution makes `n + 1` from `n` and `1`), so that a constraint
            // on it can be decided.
            EKind::Bin(op, l, r) => match (*self.kind(l), *self.kind(r)) {
                (EKind::Int(a), EKind::Int(b)) => match fold(op, a, b) {
                    Some(v) => EKind::Int(v),
                    None => EKind::Bin(op, l, r),
                },
                // `(n + 1) - n` is 1: the difference of two offsets from one value (a
                // capacity set to `size + 1`, tested against `size`).
                _ if op == BinOp::Sub => match (self.offset_of(l), self.offset_of(r)) {
                    // Not for `<number>`/`<unknown>`: every occurrence may be another value.
                    ((Some(x), a), (Some(y), b))
                        if x == y && !crate::probe::state::mentions_unknown_value(self, x) =>
                    {
                        match a.checked_sub(b) {
                            Some(v) => EKind::Int(v),
                            None => EKind::Bin(op, l, r),
                        }
                    }
                    _ => EKind::Bin(op, l, r),
                },
                _ => EKind::Bin(op, l, r),
            },
            k => k,
        };
        let ty = self.ty_id(ty);
        let node = ENode { kind, ty };
        if let Some(&e) = self.index.get(&node) {
            return e;
        }
        let size = match node.kind {
            EKind::Deref(a) | EKind::Field(a, _) => self.size(a).saturating_add(1),
            EKind::Bin(_, l, r) => self.size(l).saturating_add(self.size(r)).saturating_add(1),
            _ => 1,
        };
        if size > MAX_EXPR_SIZE {
            // Hash-consed expressions are DAGs, but every walk here is over the tree: a chain of
            // assignments that each read a variable twice (the mixing steps of a hash function,
            // as uthash's macros expand to) doubles the tree at each substitution. Such an
            // expression is not built: the arena records the overflow (the engine then gives up
            // the fact or the probe, see `take_overflow`) and stands in `Unknown`.
            self.overflow = true;
            return self.mk(EKind::Unknown, &self.types[node.ty.0 as usize].clone());
        }
        let e = E(self.nodes.len() as u32);
        self.nodes.push(node.clone());
        self.sizes.push(size);
        self.index.insert(node, e);
        e
    }
    /// `((T *)p)->f` where `p` holds an `S *` and `f` is in the common initial sequence of `T`
    /// and `S` (C11 6.5.2.3: the same members, in order, up to and including `f`): the same
    /// location as `p->f`, so one expression (an event constructor sets `ev->type` through its
    /// own struct type, the generic free reads it through the base type).
    fn uncast_base(&mut self, b: E, n: u32) -> E {
        let EKind::Deref(a) = *self.kind(b) else {
            return b;
        };
        let Some(natural) = self.ty(a).pointee().cloned() else {
            return b;
        };
        let cast = self.ty(b).clone();
        if natural == cast {
            return b;
        }
        let env = self.env;
        let (Some(t), Some(s)) = (
            env.resolve(&cast).pointee().map(|t| env.resolve(t)),
            env.resolve(&natural).pointee().map(|t| env.resolve(t)),
        ) else {
            return b;
        };
        let (Some(dt), Some(ds)) = (env.struct_def(&t), env.struct_def(&s)) else {
            return b;
        };
        if dt.is_union || ds.is_union || dt.tag == ds.tag {
            return b;
        }
        let name = self.string_of(n);
        let Some(i) = dt.fields.iter().position(|f| f.name == name) else {
            return b;
        };
        let common = ds.fields.len() > i
            && dt.fields[..=i]
                .iter()
                .zip(&ds.fields[..=i])
                .all(|(x, y)| x.name == y.name && env.resolve(&x.ty) == env.resolve(&y.ty));
        if !common {
            return b;
        }
        self.deref(a)
    }

    /// The member access `b2->f` made in place of `e` (`b->f`) by a substitution of its base.
    /// Where `b2` is a pointer to something without members (`void *`, `char *`: `iter =
    /// *iter_p` put `*iter_p` in place of `iter`) and `b` pointed to a struct, the member is
    /// still that struct's, as C's implicit conversion has it: its region is `Field(S, f)`
    /// ([`Arena::pt`]), where an untyped base alone has all memory. The expression itself is
    /// unchanged, so every comparison of expressions is as before.
    pub fn rebuilt_field(&mut self, e: E, b2: E, f: u32, ty: &Type) -> E {
        let e2 = self.mk(EKind::Field(b2, f), ty);
        let EKind::Field(b2, _) = *self.kind(e2) else {
            return e2;
        };
        if self.member_pointee(b2).is_some() {
            return e2;
        }
        let structs: SmallVec<[TyId; 1]> = match *self.kind(e) {
            EKind::Field(b, _) => match self.member_pointee(b) {
                Some(t) => smallvec::smallvec![self.ty_id(&t)],
                None => self.member_of.get(&e).cloned().unwrap_or_default(),
            },
            _ => SmallVec::new(),
        };
        if structs.is_empty() {
            return e2;
        }
        let known = self.member_of.entry(e2).or_default();
        let before = known.len();
        for t in structs {
            if !known.contains(&t) {
                known.push(t);
            }
        }
        if known.len() != before {
            // Its regions (and those of what reads it) narrow from all memory.
            self.pt_cache.remove(&e2);
            self.reads_cache.clear();
        }
        e2
    }

    /// The struct or union (declared in the workspace) `b` points to, if it does.
    fn member_pointee(&self, b: E) -> Option<Type> {
        let t = self
            .env
            .resolve(&self.ty(b).pointee().cloned().unwrap_or_default());
        (t.is_aggregate() && self.env.struct_def(&t).is_some()).then_some(t)
    }

    /// The size of `e` as a tree (at most `MAX_EXPR_SIZE`).
    pub fn size(&self, e: E) -> u32 {
        self.sizes[e.0 as usize]
    }
    /// Whether an expression over `MAX_EXPR_SIZE` was asked for since the last call; clears it.
    /// What was computed from the `Unknown` standing in for it must be dropped (a constraint:
    /// a weaker fact) or the probe given up (`unproved (budget)`), never trusted.
    pub fn take_overflow(&mut self) -> bool {
        std::mem::take(&mut self.overflow)
    }
    /// Records an overflow again (after `take_overflow` isolated one computation).
    pub fn note_overflow(&mut self, overflowed: bool) {
        self.overflow |= overflowed;
    }
    pub fn int(&mut self, v: i64) -> E {
        self.mk(EKind::Int(v), &Type::Int)
    }
    pub fn deref(&mut self, a: E) -> E {
        if let Some(&e) = self.deref_cache.get(&a) {
            return e;
        }
        let e = self.deref_uncached(a);
        self.deref_cache.insert(a, e);
        e
    }
    fn deref_uncached(&mut self, a: E) -> E {
        let t = self.ty(a).pointee().cloned().unwrap_or_default();
        self.mk(EKind::Deref(a), &t)
    }
    pub fn addr_local(&mut self, f: FuncId, l: LocalId, ty: &Type) -> E {
        self.mk(EKind::Addr(Sym::Local(f, l)), &Type::pointer_to(ty.clone()))
    }
    pub fn var(&mut self, f: FuncId, l: LocalId, ty: &Type) -> E {
        let a = self.addr_local(f, l, ty);
        self.deref(a)
    }
    /// Rename symbols in `e` with `f` (`None` drops the whole expression).
    pub fn rename(&mut self, e: E, f: &dyn Fn(Sym) -> Option<Sym>) -> Option<E> {
        let ty = self.ty(e).clone();
        Some(match *self.kind(e) {
            EKind::Addr(s) => {
                let s2 = f(s)?;
                if s2 == s {
                    e
                } else {
                    self.mk(EKind::Addr(s2), &ty)
                }
            }
            EKind::Deref(a) => {
                let a2 = self.rename(a, f)?;
                if a2 == a {
                    e
                } else {
                    self.mk(EKind::Deref(a2), &ty)
                }
            }
            EKind::Field(b, n) => {
                let b2 = self.rename(b, f)?;
                if b2 == b {
                    e
                } else {
                    self.rebuilt_field(e, b2, n, &ty)
                }
            }
            EKind::Bin(op, l, r) => {
                let l2 = self.rename(l, f)?;
                let r2 = self.rename(r, f)?;
                if l2 == l && r2 == r {
                    e
                } else {
                    self.mk(EKind::Bin(op, l2, r2), &ty)
                }
            }
            _ => e,
        })
    }

    /// Record a visited function's address-taken locals.
    pub fn learn_function(&mut self, f: FuncId, ir: &FunctionIr) {
        if self.address_taken.contains_key(&(f, LocalId(0))) || ir.locals.is_empty() {
            return;
        }
        for (i, l) in ir.locals.iter().enumerate() {
            self.address_taken
                .insert((f, LocalId(i as u32)), l.address_taken);
        }
    }

    /// Record the locals of `f` that never hold a pointer (`probe::scalar_locals`).
    pub fn learn_scalar_locals(&mut self, f: FuncId, locals: impl IntoIterator<Item = LocalId>) {
        self.scalar_locals
            .extend(locals.into_iter().map(|l| (f, l)));
    }

    /// Translate an IR expression of function `f`.
    pub fn translate(&mut self, f: FuncId, ir: &FunctionIr, e: ExprId) -> E {
        if let Some(&t) = self.translated.get(&(f, e)) {
            return t;
        }
        self.learn_function(f, ir);
        let x = ir.exprs.get(e);
        let kind = match &x.kind {
            ExprKind::Int(n) => EKind::Int(*n),
            ExprKind::Scalar => EKind::Num,
            ExprKind::Addr(s) => EKind::Addr(match s {
                Symbol::Local(l) => Sym::Local(f, *l),
                Symbol::Global(g) => Sym::Global(self.string(g)),
                Symbol::Function(n) => Sym::Function(self.string(n)),
                Symbol::StringLit(k) => Sym::StringLit(f, *k),
            }),
            ExprKind::Deref(a) => EKind::Deref(self.translate(f, ir, *a)),
            ExprKind::Field(b, n) => {
                let b = self.translate(f, ir, *b);
                EKind::Field(b, self.string(n))
            }
            ExprKind::Binary(op, l, r) => {
                let l = self.translate(f, ir, *l);
                let r = self.translate(f, ir, *r);
                EKind::Bin(*op, l, r)
            }
            ExprKind::Unknown => EKind::Unknown,
        };
        let t = self.mk(kind, &x.ty);
        self.translated.insert((f, e), t);
        t
    }

    /// The dereferences `*e'` inside `e` (the paper's Mem(e)), outermost first.
    pub fn mems(&self, e: E, out: &mut SmallVec<[E; 8]>) {
        let mut stack: SmallVec<[E; 8]> = SmallVec::new();
        stack.push(e);
        while let Some(x) = stack.pop() {
            match self.kind(x) {
                EKind::Deref(a) => {
                    out.push(x);
                    stack.push(*a);
                }
                EKind::Field(b, _) => stack.push(*b),
                EKind::Bin(_, l, r) => {
                    stack.push(*l);
                    stack.push(*r);
                }
                _ => {}
            }
        }
    }

    /// The regions `e` reads: the union of `pt(x)` over its dereferences `*x` (cached).
    pub fn reads(&mut self, e: E) -> RegionSet {
        if let Some(r) = self.reads_cache.get(&e) {
            return r.clone();
        }
        let mut ms: SmallVec<[E; 8]> = SmallVec::new();
        self.mems(e, &mut ms);
        let mut r = RegionSet::empty();
        for m in ms {
            if let EKind::Deref(x) = *self.kind(m) {
                let p = self.pt(x);
                r.union_with(&p);
            }
        }
        self.reads_cache.insert(e, r.clone());
        r
    }

    /// Whether `e` mentions a symbol satisfying `pred`.
    pub fn mentions(&self, e: E, pred: &impl Fn(Sym) -> bool) -> bool {
        match self.kind(e) {
            EKind::Addr(s) => pred(*s),
            EKind::Deref(a) | EKind::Field(a, _) => self.mentions(*a, pred),
            EKind::Bin(_, l, r) => self.mentions(*l, pred) || self.mentions(*r, pred),
            _ => false,
        }
    }

    /// Replace every occurrence of `target` in `e` by `repl`.
    pub fn substitute(&mut self, e: E, target: E, repl: E) -> E {
        if e == target {
            return repl;
        }
        let ty = self.ty(e).clone();
        match *self.kind(e) {
            EKind::Deref(a) => {
                let a2 = self.substitute(a, target, repl);
                if a2 == a {
                    e
                } else {
                    let t = self.ty(a2).pointee().cloned().unwrap_or(ty);
                    self.mk(EKind::Deref(a2), &t)
                }
            }
            EKind::Field(b, f) => {
                let b2 = self.substitute(b, target, repl);
                if b2 == b {
                    e
                } else {
                    self.rebuilt_field(e, b2, f, &ty)
                }
            }
            EKind::Bin(op, l, r) => {
                let l2 = self.substitute(l, target, repl);
                let r2 = self.substitute(r, target, repl);
                if l2 == l && r2 == r {
                    e
                } else {
                    self.mk(EKind::Bin(op, l2, r2), &ty)
                }
            }
            _ => e,
        }
    }

    /// Whether `target` occurs in `e`.
    pub fn contains(&self, e: E, target: E) -> bool {
        if e == target {
            return true;
        }
        match self.kind(e) {
            EKind::Deref(a) | EKind::Field(a, _) => self.contains(*a, target),
            EKind::Bin(_, l, r) => self.contains(*l, target) || self.contains(*r, target),
            _ => false,
        }
    }

    // ---- points-to ------------------------------------------------------------------------

    /// `pt(e)`: the regions the location `*e` may be in.
    pub fn pt(&mut self, e: E) -> RegionSet {
        if let Some(s) = self.pt_cache.get(&e) {
            return s.clone();
        }
        let s = self.compute_pt(e);
        self.pt_cache.insert(e, s.clone());
        s
    }

    fn var_root(&self, e: E) -> Option<(VarRoot, Vec<u32>)> {
        // A location rooted at a variable whose address is never taken: `&x` or `&x.f.g`.
        let mut fields = Vec::new();
        let mut cur = e;
        loop {
            match self.kind(cur) {
                EKind::Field(b, f) => {
                    fields.push(*f);
                    cur = *b;
                }
                EKind::Addr(Sym::Local(func, l)) => {
                    let taken = self
                        .address_taken
                        .get(&(*func, *l))
                        .copied()
                        .unwrap_or(true);
                    if taken {
                        return None;
                    }
                    fields.reverse();
                    return Some((VarRoot::Local(*func, *l), fields));
                }
                EKind::Addr(Sym::Frozen(depth, func, l)) => {
                    let taken = self
                        .address_taken
                        .get(&(*func, *l))
                        .copied()
                        .unwrap_or(true);
                    if taken {
                        return None;
                    }
                    fields.reverse();
                    return Some((VarRoot::Frozen(*depth, *func, *l), fields));
                }
                EKind::Addr(Sym::Global(g)) => {
                    let name = self.string_of(*g);
                    if self.classes.address_taken_globals.contains(name) {
                        return None;
                    }
                    fields.reverse();
                    return Some((VarRoot::Global(name.to_string()), fields));
                }
                EKind::Addr(Sym::Shadow(i)) => {
                    fields.reverse();
                    return Some((VarRoot::Shadow(*i), fields));
                }
                _ => return None,
            }
        }
    }

    fn compute_pt(&mut self, e: E) -> RegionSet {
        match *self.kind(e) {
            EKind::Int(_) | EKind::Num => RegionSet::empty(),
            EKind::Addr(Sym::Function(_)) | EKind::Addr(Sym::StringLit(..)) => RegionSet::empty(),
            EKind::Unknown => RegionSet::all_memory(),
            _ => {
                if let Some((root, fields)) = self.var_root(e) {
                    let loc_ty = self.ty(e).pointee().cloned().unwrap_or_default();
                    return self.var_regions(root, fields, &loc_ty, 0);
                }
                let loc_ty = self
                    .env
                    .resolve(&self.ty(e).pointee().cloned().unwrap_or_default());
                match *self.kind(e) {
                    EKind::Field(b, f) => {
                        let sty = self
                            .env
                            .resolve(&self.ty(b).pointee().cloned().unwrap_or_default());
                        if sty.is_aggregate() {
                            self.field_region(&sty, f, &loc_ty)
                        } else if let Some(outer) = self.undeclared_struct_around(b) {
                            // A member of a member of a struct declared nowhere in the
                            // workspace: within that struct's memory (as `ModSet::add_write`).
                            let class = self.classes.class_of(&outer);
                            let c = self.names.class(&class);
                            RegionSet::one(Region::Mem(c))
                        } else if let Some(structs) =
                            self.member_of.get(&e).filter(|s| !s.is_empty()).cloned()
                        {
                            // A member of a struct read through an untyped pointer that a
                            // substitution put in place of the struct pointer.
                            let mut set = RegionSet::empty();
                            for t in structs {
                                let t = self.types[t.0 as usize].clone();
                                set.union_with(&self.field_region(&t, f, &loc_ty));
                            }
                            set
                        } else {
                            // A field of something we cannot type (a cast we do not see).
                            RegionSet::all_memory()
                        }
                    }
                    _ => self.mem_regions(&loc_ty, 0),
                }
            }
        }
    }

    /// Regions of a variable location; a struct variable is one region per scalar field.
    fn var_regions(&mut self, root: VarRoot, fields: Vec<u32>, ty: &Type, depth: u32) -> RegionSet {
        let ty = self.env.resolve(ty);
        if ty.is_aggregate()
            && depth < 4
            && let Some(def) = self.env.struct_def(&ty).cloned()
            && !def.fields.is_empty()
        {
            let mut set = RegionSet::empty();
            for fd in &def.fields {
                let mut p = fields.clone();
                p.push(self.string(&fd.name));
                let sub = self.var_regions(root.clone(), p, &fd.ty, depth + 1);
                set.union_with(&sub);
            }
            return set;
        }
        let fields = fields
            .iter()
            .map(|f| {
                let s = self.strings[*f as usize].clone();
                self.names.name(&s)
            })
            .collect();
        RegionSet::one(self.names.var(VarPath { root, fields }))
    }

    fn field_region(&mut self, sty: &Type, field: u32, loc_ty: &Type) -> RegionSet {
        let class = self.classes.class_of(sty);
        let c = self.names.class(&class);
        // A struct declared nowhere in the workspace has no known members: its memory is one
        // region (as `mem_regions` has it).
        if self.classes.is_collapsed(&class) || self.env.struct_def(sty).is_none() {
            return RegionSet::one(Region::Mem(c));
        }
        if loc_ty.is_aggregate() {
            // A nested struct member: all of its fields.
            return self.mem_regions(loc_ty, 1);
        }
        let fname = self.strings[field as usize].clone();
        let n = self.names.name(&fname);
        RegionSet::one(Region::Field(c, n))
    }

    /// The struct declared nowhere in the workspace that a chain of members `b` lies in
    /// (see `regions::undeclared_struct_around`).
    fn undeclared_struct_around(&self, mut b: E) -> Option<Type> {
        loop {
            let t = self
                .env
                .resolve(&self.ty(b).pointee().cloned().unwrap_or_default());
            if matches!(t, Type::Struct(_) | Type::Union(_)) {
                return self.env.struct_def(&t).is_none().then_some(t);
            }
            // A typedef name declared nowhere in the workspace (`z_stream`, `SSL_CTX`) with
            // a member: a struct of a library's, as `mem_regions` treats its memory.
            if matches!(t, Type::Named(_)) {
                return Some(t);
            }
            match *self.kind(b) {
                EKind::Field(x, _) => b = x,
                _ => return None,
            }
        }
    }

    /// Regions of heap/address-taken memory of a location type; a struct location is all of
    /// its fields' regions.
    fn mem_regions(&mut self, ty: &Type, depth: u32) -> RegionSet {
        match ty {
            Type::Unknown | Type::Void => RegionSet::all_memory(),
            // A type declared nowhere in the workspace (`FILE`, `WSADATA`, a library's opaque
            // handle) is its own class: its memory holds values of that type only.
            t @ Type::Named(_) => {
                let class = self.classes.class_of(t);
                let c = self.names.class(&class);
                RegionSet::one(Region::Mem(c))
            }
            t if t.is_aggregate() => {
                let class = self.classes.class_of(t);
                let c = self.names.class(&class);
                if self.classes.is_collapsed(&class) || depth > 4 {
                    return RegionSet::one(Region::Mem(c));
                }
                // A struct declared nowhere in the workspace (`struct tm`, `struct stat`): its
                // memory as one region of its class.
                let Some(def) = self.env.struct_def(t).cloned() else {
                    return RegionSet::one(Region::Mem(c));
                };
                let mut set = RegionSet::one(Region::Mem(c));
                for fd in &def.fields {
                    let fty = self.env.resolve(&fd.ty);
                    if fty.is_aggregate() {
                        let sub = self.mem_regions(&fty, depth + 1);
                        set.union_with(&sub);
                    } else {
                        let n = self.names.name(&fd.name);
                        set.insert(Region::Field(c, n));
                    }
                }
                set
            }
            Type::Array(elem, _) => self.mem_regions(elem, depth),
            t => {
                let class = self.classes.class_of(t);
                let c = self.names.class(&class);
                RegionSet::one(Region::Mem(c))
            }
        }
    }

    /// Whether locations in region `r` can hold a pointer at all (an `int` region cannot; this
    /// is the §4.8 "region-set diminishing" under the type-safety assumption).
    pub fn may_hold_pointer(&self, r: Region) -> bool {
        let t = match r {
            Region::Var(i) => {
                let v = self.names.var_path(i);
                return match v.root {
                    VarRoot::Local(f, l) | VarRoot::Frozen(_, f, l) if v.fields.is_empty() => {
                        !self.scalar_locals.contains(&(f, l))
                    }
                    _ => true,
                };
            }
            Region::Mem(c) => self.names.class_name(c).to_string(),
            Region::Field(..) => return true,
        };
        !(t == "int" || t == "double")
    }
}

/// Display an engine expression in C notation, naming locals through `local_name`.
pub fn display(a: &Arena, e: E, local_name: &dyn Fn(FuncId, LocalId) -> String) -> String {
    let mut s = String::new();
    c_value(a, e, local_name, &mut s, 0);
    s
}

fn sym_name(a: &Arena, s: Sym, local_name: &dyn Fn(FuncId, LocalId) -> String) -> String {
    match s {
        Sym::Local(f, l) => local_name(f, l),
        Sym::Global(g) => crate::ir::shown_global(a.string_of(g)).to_string(),
        Sym::Function(g) => a.string_of(g).to_string(),
        Sym::StringLit(..) => "\"…\"".into(),
        Sym::Shadow(i) => format!("<arg{i}>"),
        Sym::Frozen(d, f, l) if SHOW_FRAMES.load(std::sync::atomic::Ordering::Relaxed) => {
            if d == ANCESTOR {
                format!("{}^A", local_name(f, l))
            } else {
                format!("{}^{d}", local_name(f, l))
            }
        }
        Sym::Frozen(_, f, l) => local_name(f, l),
    }
}

/// Name caller-frame variables with their depth (`x^1`): for `REDUCTIO_TRACE`, never in
/// messages.
pub static SHOW_FRAMES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn c_value(a: &Arena, e: E, ln: &dyn Fn(FuncId, LocalId) -> String, out: &mut String, depth: u32) {
    if depth > 64 {
        out.push('…');
        return;
    }
    match a.kind(e) {
        EKind::Int(n) => out.push_str(&if *n == 0 && a.ty(e).is_pointer() {
            "NULL".to_string()
        } else {
            n.to_string()
        }),
        EKind::Num => out.push_str("<number>"),
        EKind::Unknown => out.push_str("<unknown>"),
        EKind::Addr(s @ (Sym::Function(_) | Sym::StringLit(..))) => {
            out.push_str(&sym_name(a, *s, ln))
        }
        EKind::Addr(s) => {
            out.push('&');
            out.push_str(&sym_name(a, *s, ln));
        }
        EKind::Deref(x) => c_place(a, *x, ln, out, depth + 1),
        EKind::Field(..) => {
            out.push('&');
            c_place(a, e, ln, out, depth + 1);
        }
        EKind::Bin(op, l, r) => {
            c_value(a, *l, ln, out, depth + 1);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            c_value(a, *r, ln, out, depth + 1);
        }
    }
}

fn c_place(
    a: &Arena,
    addr: E,
    ln: &dyn Fn(FuncId, LocalId) -> String,
    out: &mut String,
    depth: u32,
) {
    if depth > 64 {
        out.push('…');
        return;
    }
    match a.kind(addr) {
        EKind::Addr(s) => out.push_str(&sym_name(a, *s, ln)),
        EKind::Field(b, f) => {
            match a.kind(*b) {
                EKind::Addr(_) | EKind::Field(..) => {
                    c_place(a, *b, ln, out, depth + 1);
                    out.push('.');
                }
                _ => {
                    c_value(a, *b, ln, out, depth + 1);
                    out.push_str("->");
                }
            }
            out.push_str(a.string_of(*f));
        }
        EKind::Bin(BinOp::Add, b, i) => {
            c_value(a, *b, ln, out, depth + 1);
            out.push('[');
            c_value(a, *i, ln, out, depth + 1);
            out.push(']');
        }
        _ => {
            out.push('*');
            c_value(a, addr, ln, out, depth + 1);
        }
    }
}

/// Whether a type can hold a pointer value.
pub fn is_pointerish(t: &Type) -> bool {
    !matches!(t, Type::Int | Type::Float | Type::Void)
}

pub fn ir_local_is_pointer(ir: &FunctionIr, l: LocalId, env: &TypeEnv) -> bool {
    env.resolve(&ir.local(l).ty).is_pointer()
}

pub use ir::CmpOp;

/// `a op b` on two known numbers, when it is defined (no overflow, no division by zero); a
/// comparison used as a value is not folded (its lowering keeps it symbolic).
fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem => a.checked_rem(b),
        BinOp::Shl => u32::try_from(b)
            .ok()
            .filter(|s| *s < 63)
            .and_then(|s| a.checked_mul(1i64 << s)),
        BinOp::Shr => u32::try_from(b).ok().filter(|s| *s < 64).map(|s| a >> s),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitOr => Some(a | b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::Compare => None,
    }
}
