//! Memory regions and points-to (paper §4.1), the two schemes of the paper combined:
//!
//! - every variable whose address is never taken is its own region — one region per scalar
//!   location, so `s.a` and `s.b` of a struct local are different regions;
//! - heap and address-taken memory is partitioned by type, field-sensitively: `struct list.next`
//!   is one region, "`struct list*` values stored outside a struct field" another.
//!
//! Types are grouped into *classes* first: memory seen through two pointer types is one memory.
//! A cast or assignment between `A*` and `B*` (both concrete) unifies A and B; a `void*` or
//! `char*` storage location that receives an `A*` and hands out a `B*` (the generic-container
//! idiom) unifies A and B too. A class with more than one struct type loses its field
//! sensitivity (one region for all its fields): after such a cast the field layout is not
//! trustworthy.
//!
//! The interface the engine uses is [`TypeClasses::location_region`]: given the shape of a
//! location, the regions it may be in. A Steensgaard or Andersen analysis can replace this
//! module behind the same interface.

pub mod capture;
mod fresh;

pub use fresh::returns_fresh;

use crate::ir::{Callee, ExprId, ExprKind, FunctionIr, LocalId, StmtKind, Symbol, Type, TypeEnv};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

/// A canonical name for a type class member, e.g. `struct list`, `int*`, `char`.
pub fn type_key(t: &Type) -> String {
    t.to_string()
}

/// Whether values of this pointee type make a pointer "generic" (`void*`, `char*`, unknown):
/// such pointers are containers for any type.
/// `void *` as a location type: a slot holding a pointer of any type. Code that reads or
/// writes pointers through a `void **` (`FREE(&p)` as `free(*pp); *pp = NULL`) reinterprets
/// no memory as another type; its writes are the callers' slots (`ModSet::generic_slots`).
pub fn is_generic_slot(t: &Type) -> bool {
    matches!(t, Type::Pointer(p) if matches!(**p, Type::Void))
}

pub fn is_generic_pointee(t: &Type) -> bool {
    matches!(t, Type::Void | Type::Unknown | Type::Named(_)) || *t == Type::Int
}

/// The result of type unification over the workspace: which location types share memory.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TypeClasses {
    /// Member key → representative key. Types not listed are their own class.
    repr: FxHashMap<String, String>,
    /// Representatives whose class contains more than one struct (field-insensitive).
    collapsed: FxHashSet<String>,
    /// Globals whose address is taken somewhere in the workspace.
    pub address_taken_globals: FxHashSet<String>,
}

/// Per-function facts the region builder needs from call resolution.
pub struct CallInfo<'a> {
    pub params: Vec<Type>,
    pub ret: Option<Type>,
    pub key: &'a str,
}

struct UnionFind {
    parent: FxHashMap<String, String>,
}

impl UnionFind {
    fn find(&mut self, k: &str) -> String {
        let mut cur = k.to_string();
        let mut path = Vec::new();
        while let Some(p) = self.parent.get(&cur) {
            if *p == cur {
                break;
            }
            path.push(cur.clone());
            cur = p.clone();
        }
        for p in path {
            self.parent.insert(p, cur.clone());
        }
        cur
    }
    fn union(&mut self, a: &str, b: &str) {
        let ra = self.find(a);
        let rb = self.find(b);
        if ra != rb {
            // Deterministic representative: the smaller key.
            let (keep, drop) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(drop, keep.clone());
            self.parent.entry(keep.clone()).or_insert(keep);
        }
    }
}

/// One function's contribution to the type classes: the pairs of concrete pointee types a
/// pointer flows between, the generic (`void*`, `char*`) storages with the concrete types that
/// pass through them, and the globals whose address it takes. Sorted and without duplicates,
/// and free of source positions: an edit that does not change how pointers flow leaves it
/// equal, so the classes are not rebuilt.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TypeFacts {
    unions: Vec<(String, String)>,
    /// (storage key, concrete type key, whether the value comes out of the storage: read
    /// from it into a concrete type, rather than stored into it)
    conduits: Vec<(String, String, bool)>,
    taken_globals: Vec<String>,
}

impl TypeFacts {
    /// The facts of one body. `callee(name)` gives the body of a called function, so that
    /// arguments flowing into `void*` parameters (and generic results) count as conduits.
    pub fn of_function(
        ir: &FunctionIr,
        env: &TypeEnv,
        callee: &dyn Fn(&str) -> Option<std::sync::Arc<FunctionIr>>,
    ) -> TypeFacts {
        let mut facts = TypeFacts::default();
        let flow = |facts: &mut TypeFacts, storage: Option<String>, dst: &Type, src: &Type| {
            let (Some(d), Some(s)) = (dst.pointee(), src.pointee()) else {
                return;
            };
            let (d, s) = (env.resolve(d), env.resolve(s));
            if d == s {
                return;
            }
            // A pointer slot seen as a `void *` slot (`void **p = ptr;`, `&he` passed as a
            // `void **`): no value changes type through it.
            let slot_or_generic = |t: &Type| is_generic_slot(t) || is_generic_pointee(t);
            if (is_generic_slot(&d) && (s.is_pointer() || slot_or_generic(&s)))
                || (is_generic_slot(&s) && (d.is_pointer() || slot_or_generic(&d)))
            {
                return;
            }
            match (is_generic_pointee(&d), is_generic_pointee(&s)) {
                (false, false) => facts.unions.push((type_key(&d), type_key(&s))),
                (true, false) => {
                    if let Some(k) = storage {
                        facts.conduits.push((k, type_key(&s), false));
                    }
                }
                (false, true) => {
                    if let Some(k) = storage {
                        facts.conduits.push((k, type_key(&d), true));
                    }
                }
                (true, true) => {}
            }
        };
        let mut taken = FxHashSet::default();
        collect_taken_globals(ir, &mut taken);
        let callee_of = callee;
        let mut fresh_results: FxHashMap<String, bool> = FxHashMap::default();
        facts.taken_globals = taken.into_iter().collect();
        for node in &ir.nodes {
            match &node.stmt.kind {
                StmtKind::Assign { addr, value } => {
                    let dst = pointee(ir, *addr);
                    let src = ir.exprs.ty(*value).clone();
                    // The storage is the generic side: the destination when a concrete
                    // pointer is stored into a generic location, the source location
                    // when a generic value is read out into a concrete one.
                    let storage = if dst.pointee().map(is_generic_pointee).unwrap_or(false) {
                        Some(storage_key(ir, *addr, env))
                    } else {
                        match ir.exprs.kind(*value) {
                            ExprKind::Deref(a) => Some(storage_key(ir, *a, env)),
                            _ => None,
                        }
                    };
                    flow(&mut facts, storage, &dst, &src);
                }
                StmtKind::Call {
                    dest,
                    callee: Callee::Direct(name),
                    args,
                } => {
                    let Some(callee) = callee(name) else {
                        continue;
                    };
                    for (i, a) in args.iter().enumerate() {
                        let Some(p) = callee.params.get(i) else { break };
                        let pty = callee.local(*p).ty.clone();
                        let aty = ir.exprs.ty(*a).clone();
                        let storage = if pty.pointee().map(is_generic_pointee).unwrap_or(false) {
                            Some(format!("{}::{}", callee.name, p.0))
                        } else {
                            match ir.exprs.kind(*a) {
                                ExprKind::Deref(x) => Some(storage_key(ir, *x, env)),
                                _ => None,
                            }
                        };
                        flow(&mut facts, storage, &pty, &aty);
                    }
                    if let (Some(d), Some(r)) = (dest, callee.ret) {
                        let dty = pointee(ir, *d);
                        let rty = callee.local(r).ty.clone();
                        // An allocator wrapper's result is a new block each time, never a
                        // value of some other type coming back out: no conduit.
                        let generic = rty.pointee().map(is_generic_pointee).unwrap_or(false);
                        let fresh = generic
                            && *fresh_results
                                .entry(name.clone())
                                .or_insert_with(|| fresh::returns_fresh(&callee, callee_of));
                        if !fresh {
                            let storage = Some(format!("{}::{}", callee.name, r.0));
                            flow(&mut facts, storage, &dty, &rty);
                        }
                    }
                }
                _ => {}
            }
        }
        facts.unions.sort_unstable();
        facts.unions.dedup();
        facts.conduits.sort_unstable();
        facts.conduits.dedup();
        facts.taken_globals.sort_unstable();
        facts
    }
}

impl TypeClasses {
    /// Unify types over the facts of every function of the program.
    pub fn from_facts<'a>(facts: impl IntoIterator<Item = &'a TypeFacts>) -> TypeClasses {
        let mut uf = UnionFind {
            parent: FxHashMap::default(),
        };
        // Storage key → the concrete pointee types stored into it, and those read out of it.
        // A generic storage reinterprets memory only where a value stored as one type can be
        // read out as another: the types on both sides are unified. A storage that values
        // only go into (a deallocator's `void *` parameter, a data pointer handed to a
        // callback registry that never reads it back typed) or only come out of (an
        // allocator's result) joins nothing: merging every type a project frees into one
        // class made all of them one region.
        let mut conduits: FxHashMap<&str, (FxHashSet<&str>, FxHashSet<&str>)> =
            FxHashMap::default();
        let mut taken_globals = FxHashSet::default();
        for f in facts {
            for (a, b) in &f.unions {
                uf.union(a, b);
            }
            for (k, t, out) in &f.conduits {
                let e = conduits.entry(k).or_default();
                if *out {
                    e.1.insert(t)
                } else {
                    e.0.insert(t)
                };
            }
            taken_globals.extend(f.taken_globals.iter().cloned());
        }
        if std::env::var_os("REDUCTIO_DEBUG_CLASSES").is_some() {
            let mut ks: Vec<_> = conduits
                .iter()
                .filter(|(_, (i, o))| !i.is_empty() && !o.is_empty() && i.len() + o.len() > 2)
                .collect();
            ks.sort_by_key(|(k, (i, o))| (std::cmp::Reverse(i.len() + o.len()), **k));
            for (k, (i, o)) in ks.iter().take(40) {
                let mut i: Vec<&&str> = i.iter().collect();
                let mut o: Vec<&&str> = o.iter().collect();
                i.sort();
                o.sort();
                eprintln!(
                    "conduit {k}: in {} {:?} out {} {:?}",
                    i.len(),
                    &i[..i.len().min(5)],
                    o.len(),
                    &o[..o.len().min(5)]
                );
            }
        }
        for (ins, outs) in conduits.values() {
            if ins.is_empty() || outs.is_empty() {
                continue;
            }
            let mut types: Vec<&str> = ins.union(outs).copied().collect();
            types.sort_unstable();
            if let Some((first, rest)) = types.split_first() {
                for t in rest {
                    uf.union(first, t);
                }
            }
        }
        let keys: Vec<String> = uf.parent.keys().cloned().collect();
        let mut repr = FxHashMap::default();
        let mut structs_in: FxHashMap<String, u32> = FxHashMap::default();
        for k in keys {
            let r = uf.find(&k);
            if k.starts_with("struct ") || k.starts_with("union ") {
                *structs_in.entry(r.clone()).or_default() += 1;
            }
            if r != k {
                repr.insert(k, r);
            }
        }
        let collapsed = structs_in
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(k, _)| k)
            .collect();
        TypeClasses {
            repr,
            collapsed,
            address_taken_globals: taken_globals,
        }
    }

    /// The class representative of a location type.
    pub fn class_of(&self, t: &Type) -> String {
        let k = type_key(t);
        self.repr.get(&k).cloned().unwrap_or(k)
    }

    /// Whether fields of this class are one region.
    pub fn is_collapsed(&self, class: &str) -> bool {
        self.collapsed.contains(class)
    }
}

fn pointee(ir: &FunctionIr, addr: ExprId) -> Type {
    ir.exprs.ty(addr).pointee().cloned().unwrap_or_default()
}

fn storage_key(ir: &FunctionIr, addr: ExprId, env: &TypeEnv) -> String {
    match ir.exprs.kind(addr) {
        ExprKind::Addr(Symbol::Local(l)) => format!("{}::{}", ir.name, l.0),
        ExprKind::Addr(Symbol::Global(g)) => format!("global {g}"),
        ExprKind::Field(b, f) => {
            let s = env.resolve(&pointee(ir, *b));
            format!("field {}.{f}", type_key(&s))
        }
        _ => format!("mem {}", type_key(&env.resolve(&pointee(ir, addr)))),
    }
}

/// Globals whose address escapes: `&g` used as a value anywhere (not as the root of a direct
/// read or write of `g` or one of its fields).
pub(crate) fn collect_taken_globals(ir: &FunctionIr, out: &mut FxHashSet<String>) {
    // An `Addr(Global)` is "used directly" when it is the operand of a Deref or the base of a
    // Field chain that ends in a Deref, or the address written by an Assign/Alloc/Call dest.
    let mut direct: FxHashSet<ExprId> = FxHashSet::default();
    let mut field_bases: FxHashMap<ExprId, ExprId> = FxHashMap::default();
    for (id, e) in ir.exprs.iter() {
        if let ExprKind::Field(b, _) = e.kind {
            field_bases.insert(id, b);
        }
    }
    let mark_direct = |mut a: ExprId, direct: &mut FxHashSet<ExprId>| {
        loop {
            direct.insert(a);
            match field_bases.get(&a) {
                Some(b) => a = *b,
                None => break,
            }
        }
    };
    for (_, e) in ir.exprs.iter() {
        if let ExprKind::Deref(a) = e.kind {
            mark_direct(a, &mut direct);
        }
    }
    for n in &ir.nodes {
        match &n.stmt.kind {
            StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => {
                mark_direct(*addr, &mut direct)
            }
            StmtKind::Call { dest: Some(d), .. } => mark_direct(*d, &mut direct),
            _ => {}
        }
    }
    // Any Addr(Global) or field address of one that appears as a value (in a statement operand
    // or inside a non-Deref expression) and is not "direct" is taken.
    let mut used_as_value: FxHashSet<ExprId> = FxHashSet::default();
    for (_, e) in ir.exprs.iter() {
        match e.kind {
            ExprKind::Binary(_, l, r) => {
                used_as_value.insert(l);
                used_as_value.insert(r);
            }
            ExprKind::Field(..) | ExprKind::Deref(_) => {}
            _ => {}
        }
    }
    for n in &ir.nodes {
        match &n.stmt.kind {
            StmtKind::Assign { value, .. } => {
                used_as_value.insert(*value);
            }
            StmtKind::Call { args, .. } => used_as_value.extend(args.iter().copied()),
            StmtKind::Cond { lhs, rhs, .. } => {
                used_as_value.insert(*lhs);
                used_as_value.insert(*rhs);
            }
            StmtKind::Free { ptr } => {
                used_as_value.insert(*ptr);
            }
            StmtKind::Opaque { reads, .. } => used_as_value.extend(reads.iter().copied()),
            StmtKind::Return { value: Some(v) } => {
                used_as_value.insert(*v);
            }
            _ => {}
        }
    }
    for v in used_as_value {
        let mut a = v;
        loop {
            match ir.exprs.kind(a) {
                ExprKind::Addr(Symbol::Global(g)) => {
                    out.insert(g.clone());
                    break;
                }
                ExprKind::Field(b, _) => a = *b,
                _ => break,
            }
        }
    }
    let _ = direct;
}

// ---- what functions may write (MOD) -----------------------------------------------------------

/// Memory a function may write, as seen by its callers: globals, struct fields and typed memory
/// of type classes (a callee can never write its caller's variables whose address is not
/// taken). Transitive over calls. `all` means anything (opaque code, unresolved calls).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ModSet {
    pub all: bool,
    pub globals: std::collections::BTreeSet<String>,
    /// (class representative of the struct, field)
    pub fields: std::collections::BTreeSet<(String, String)>,
    /// class representatives of typed memory written outside struct fields
    pub mems: std::collections::BTreeSet<String>,
    /// It may allocate a heap block (an allocation statement, here or in a callee).
    pub allocates: bool,
    /// It may write or free memory that existed before the call: anything but its own
    /// variables and the fields of blocks it has just allocated itself (see
    /// `own_writes`). Without it, every location a caller could name before the call keeps
    /// its value.
    pub writes_old: bool,
    /// Class representatives of the blocks it may free, by the freed pointer's static type
    /// (here or in a callee); frees through `void *` or `char *` are not listed.
    pub frees: std::collections::BTreeSet<String>,
    /// It may write a pointer slot through a `void **` (`*(void **) p = NULL`, here or in a
    /// callee): the slot is whatever pointer the caller's argument points to, of any type,
    /// so a call also writes what its pointer-to-pointer arguments point to.
    pub generic_slots: bool,
    /// It may free a block through an untyped pointer (`void *`, `char *`; here or in a
    /// callee), which [`ModSet::frees`] cannot name: `mutt_mem_free(&p)` frees `*(void **)`.
    pub frees_untyped: bool,
}

impl ModSet {
    pub fn union_with(&mut self, o: &ModSet) -> bool {
        let before = (
            self.all,
            self.allocates,
            self.writes_old,
            self.globals.len(),
            self.fields.len(),
            self.mems.len(),
        );
        let slots = (self.generic_slots, self.frees_untyped);
        self.generic_slots |= o.generic_slots;
        self.frees_untyped |= o.frees_untyped;
        self.all |= o.all;
        self.allocates |= o.allocates;
        self.writes_old |= o.writes_old;
        self.globals.extend(o.globals.iter().cloned());
        self.fields.extend(o.fields.iter().cloned());
        self.mems.extend(o.mems.iter().cloned());
        let f0 = self.frees.len();
        self.frees.extend(o.frees.iter().cloned());
        self.frees.len() != f0
            || slots != (self.generic_slots, self.frees_untyped)
            || before
                != (
                    self.all,
                    self.allocates,
                    self.writes_old,
                    self.globals.len(),
                    self.fields.len(),
                    self.mems.len(),
                )
    }
    pub fn is_empty(&self) -> bool {
        !self.all && self.globals.is_empty() && self.fields.is_empty() && self.mems.is_empty()
    }

    /// Memory of location type `ty` (a struct location is all of its fields).
    fn add_mem(&mut self, ty: &Type, env: &TypeEnv, classes: &TypeClasses, depth: u32) {
        let ty = env.resolve(ty);
        match &ty {
            Type::Unknown | Type::Void => self.all = true,
            // A type declared nowhere in the workspace is its own class (as the engine's
            // `Arena::mem_regions` has it).
            t @ Type::Named(_) => {
                self.mems.insert(classes.class_of(t));
            }
            Type::Array(e, _) => self.add_mem(e, env, classes, depth),
            t if t.is_aggregate() => {
                let class = classes.class_of(t);
                if classes.is_collapsed(&class) || depth > 4 {
                    self.mems.insert(class);
                    return;
                }
                match env.struct_def(t) {
                    Some(def) => {
                        for f in &def.fields {
                            let fty = env.resolve(&f.ty);
                            if fty.is_aggregate() {
                                self.add_mem(&fty, env, classes, depth + 1);
                            } else {
                                self.fields.insert((class.clone(), f.name.clone()));
                            }
                        }
                    }
                    // Declared nowhere in the workspace: one region of its class.
                    None => {
                        self.mems.insert(class);
                    }
                }
            }
            t => {
                self.mems.insert(classes.class_of(t));
            }
        }
    }

    /// The write of location `*addr` in function `ir`, as callers see it. `false`: it writes
    /// the function's own variable (whose address is never taken), which no caller sees.
    pub fn add_write(
        &mut self,
        ir: &FunctionIr,
        addr: ExprId,
        env: &TypeEnv,
        classes: &TypeClasses,
    ) -> bool {
        // Rooted at a variable?
        let mut cur = addr;
        let mut field_of: Option<(Type, String)> = None;
        loop {
            match ir.exprs.kind(cur) {
                ExprKind::Addr(Symbol::Local(l)) => {
                    if !ir.local(*l).address_taken {
                        return false; // the function's own variable
                    }
                    break;
                }
                ExprKind::Addr(Symbol::Global(g)) => {
                    if !classes.address_taken_globals.contains(g) {
                        self.globals.insert(g.clone());
                        return true;
                    }
                    break;
                }
                ExprKind::Field(b, f) => {
                    if field_of.is_none() {
                        let sty = env.resolve(&pointee(ir, *b));
                        field_of = Some((sty, f.clone()));
                    }
                    cur = *b;
                }
                _ => break,
            }
        }
        let loc_ty = pointee(ir, addr);
        if is_generic_slot(&env.resolve(&loc_ty))
            && !matches!(ir.exprs.kind(addr), ExprKind::Field(..))
        {
            self.generic_slots = true;
        }
        match ir.exprs.kind(addr) {
            ExprKind::Field(b, f) => {
                let sty = env.resolve(&pointee(ir, *b));
                if sty.is_aggregate() && !env.resolve(&loc_ty).is_aggregate() {
                    let class = classes.class_of(&sty);
                    // A struct declared nowhere: one region, as the engine's `field_region`.
                    if classes.is_collapsed(&class) || env.struct_def(&sty).is_none() {
                        self.mems.insert(class);
                    } else {
                        self.fields.insert((class, f.clone()));
                    }
                } else if sty.is_aggregate() {
                    self.add_mem(&loc_ty, env, classes, 1);
                } else if let Some(outer) = undeclared_struct_around(ir, *b, env) {
                    // A member of a member of a struct declared nowhere in the workspace
                    // (`sin.sin_addr.s_addr`): within that struct's memory.
                    self.mems.insert(classes.class_of(&outer));
                } else {
                    if std::env::var_os("REDUCTIO_DEBUG_MOD").is_some() {
                        // Why the statement `MODALL` names next made the set `all`.
                        eprintln!(
                            "MODFIELD {} {}: the struct's type is {sty:?}",
                            ir.name,
                            crate::ir::display_expr(ir, addr, crate::ir::Notation::C)
                        );
                    }
                    self.all = true;
                }
            }
            ExprKind::Unknown => self.all = true,
            _ => self.add_mem(&loc_ty, env, classes, 0),
        }
        let _ = field_of;
        true
    }
}

/// The struct declared nowhere in the workspace whose member address `a` lies in, when `a` is
/// a chain of members (`&s.a.b`) rooted at one (its members' types are unknown, so the chain
/// cannot be typed further).
pub fn undeclared_struct_around(ir: &FunctionIr, mut a: ExprId, env: &TypeEnv) -> Option<Type> {
    loop {
        let t = env.resolve(&pointee(ir, a));
        if matches!(t, Type::Struct(_) | Type::Union(_)) {
            return env.struct_def(&t).is_none().then_some(t);
        }
        // A typedef name declared nowhere (`z_stream`): as the engine's
        // `undeclared_struct_around`.
        if matches!(t, Type::Named(_)) {
            return Some(t);
        }
        match ir.exprs.kind(a) {
            ExprKind::Field(b, _) => a = *b,
            _ => return None,
        }
    }
}

/// How a direct callee is treated when computing MOD.
pub enum CalleeKind {
    /// It has a body: its own MOD set counts (the fixpoint adds it).
    Body,
    /// A known library function (what it writes through its arguments), or one that never
    /// returns (`None`: nothing after it counts).
    Library(Option<crate::ir::library::Known>),
    /// Body-less and unknown: it may write what its pointer arguments point to.
    Unknown,
}

/// What each function may write, transitively: its own writes and those of every function it
/// may call. `own[i]` is function `i`'s own MOD set and the functions it calls. Computed over
/// the strongly connected components of the call graph, callees first, so each set is built
/// once (the members of a recursive cycle share theirs).
pub fn transitive_mod(own: &[std::sync::Arc<(ModSet, Vec<u32>)>]) -> Vec<std::sync::Arc<ModSet>> {
    let n = own.len();
    // Callee indices out of range (not from this table) are ignored.
    let succ = |v: usize| own[v].1.iter().map(|&w| w as usize).filter(move |&w| w < n);
    // Tarjan's algorithm, iterative: components come out callees first.
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0u32;
    let mut out: Vec<Option<std::sync::Arc<ModSet>>> = vec![None; n];
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, position in its callee list)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(&w) = own[v].1.get(*pos) {
                *pos += 1;
                let w = w as usize;
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] != index[v] {
                continue;
            }
            // v roots a component: pop it, and union its own sets with its callees' results.
            let mut members = Vec::new();
            while let Some(w) = stack.pop() {
                on_stack[w] = false;
                members.push(w);
                if w == v {
                    break;
                }
            }
            let mut set = ModSet::default();
            for &m in &members {
                set.union_with(&own[m].0);
            }
            for &m in &members {
                for w in succ(m) {
                    if let Some(done) = &out[w]
                        && !set.all
                    {
                        set.union_with(done);
                    }
                }
            }
            let set = std::sync::Arc::new(set);
            for &m in &members {
                out[m] = Some(set.clone());
            }
        }
    }
    out.into_iter().map(|s| s.unwrap_or_default()).collect()
}

/// A function's own writes, and the functions with a body it calls (by name) — for the MOD
/// fixpoint. Indirect calls and opaque code make the set `all`. `fresh(n)`: statement `n`
/// writes a field of a block this function has just allocated and not handed on (see
/// `probe::sites::fresh_writes`); such writes do not count as `writes_old`.
pub fn own_writes(
    ir: &FunctionIr,
    env: &TypeEnv,
    classes: &TypeClasses,
    classify: &dyn Fn(&str) -> CalleeKind,
    fresh: &dyn Fn(crate::ir::NodeId) -> bool,
) -> (ModSet, Vec<String>) {
    let cx = OwnWritesContext {
        fresh,
        explored: &|_| false,
        returns: &|_| true,
        new_block: &|_, _| false,
    };
    let (m, callees, _) = own_writes_with(ir, env, classes, classify, &cx);
    (m, callees)
}

/// What [`own_writes_with`] knows of a body beyond its statements.
pub struct OwnWritesContext<'a> {
    /// Statement `n` writes a field of a block this function has just allocated and not
    /// handed on (see `probe::sites::fresh_writes`); such writes do not count as `writes_old`.
    pub fresh: &'a dyn Fn(crate::ir::NodeId) -> bool,
    /// Whether a call through a function pointer with `n` arguments reaches few enough
    /// address-taken functions for the engine to follow them (their writes count, through
    /// the arities returned third, which the caller turns into edges), or is treated like a
    /// call of an unknown body-less function (it may write what its pointer arguments point
    /// to).
    pub explored: &'a dyn Fn(usize) -> bool,
    /// Statement `n` lies on a path to the function's normal exit (see
    /// `probe::sites::returning_nodes`). Only those statements count: a caller's state after
    /// the call is reached only by paths that return, so what a path that ends in `exit`,
    /// `abort` or a project's fatal-error function writes or calls is no part of the summary.
    pub returns: &'a dyn Fn(crate::ir::NodeId) -> bool,
    /// Pointer `e`, an argument of the call at statement `n`, points into a block allocated
    /// during this call of the function (`probe::sites::new_blocks`). A C library function
    /// that only writes the bytes it is given to write through it (`memset`, `memcpy`,
    /// `read`, `snprintf`) then writes memory that did not exist before the call, which no
    /// caller's fact can be about; such a write is left out.
    pub new_block: &'a dyn Fn(crate::ir::NodeId, ExprId) -> bool,
}

/// [`own_writes`], with calls through function pointers as the engine treats them and the
/// other knowledge of [`OwnWritesContext`]. Code the front end did not model still makes the
/// set `all`.
pub fn own_writes_with(
    ir: &FunctionIr,
    env: &TypeEnv,
    classes: &TypeClasses,
    classify: &dyn Fn(&str) -> CalleeKind,
    cx: &OwnWritesContext<'_>,
) -> (ModSet, Vec<String>, Vec<usize>) {
    let OwnWritesContext {
        fresh,
        explored,
        returns,
        new_block,
    } = cx;
    let mut m = ModSet::default();
    let mut callees = Vec::new();
    let mut arities = Vec::new();
    let debug = std::env::var_os("REDUCTIO_DEBUG_MOD").is_some();
    for id in ir.node_ids() {
        if !returns(id) {
            continue;
        }
        let was_all = m.all;
        match &ir.node(id).stmt.kind {
            StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => {
                m.allocates |= matches!(ir.node(id).stmt.kind, StmtKind::Alloc { .. });
                let seen = m.add_write(ir, *addr, env, classes);
                m.writes_old |= seen && !fresh(id);
            }
            StmtKind::Call { dest, callee, args } => {
                if let Some(d) = dest {
                    m.writes_old |= m.add_write(ir, *d, env, classes);
                }
                match callee {
                    Callee::Direct(name) => match classify(name) {
                        CalleeKind::Body => callees.push(name.clone()),
                        CalleeKind::Library(known) => {
                            for g in crate::ir::library::written_globals(name) {
                                m.writes_old = true;
                                m.globals.insert((*g).to_string());
                            }
                            for (i, a) in args.iter().enumerate() {
                                if known.is_some_and(|k| k.writes_argument(i))
                                    && !new_block(id, *a)
                                    && let Some(p) = ir.exprs.ty(*a).pointee()
                                {
                                    m.writes_old = true;
                                    m.add_mem(p, env, classes, 0);
                                }
                            }
                        }
                        CalleeKind::Unknown => {
                            for a in args {
                                if let Some(p) = ir.exprs.ty(*a).pointee() {
                                    m.writes_old = true;
                                    m.add_mem(p, env, classes, 0);
                                }
                            }
                        }
                    },
                    Callee::Indirect(_) if explored(args.len()) => {
                        arities.push(args.len());
                    }
                    Callee::Indirect(_) => {
                        for a in args {
                            if let Some(p) = ir.exprs.ty(*a).pointee() {
                                m.writes_old = true;
                                m.add_mem(p, env, classes, 0);
                            }
                        }
                    }
                }
            }
            StmtKind::Free { ptr } => {
                m.writes_old = true;
                match ir.exprs.ty(*ptr).pointee().map(|p| env.resolve(p)) {
                    Some(p) if !is_generic_pointee(&p) => {
                        m.frees.insert(classes.class_of(&p));
                    }
                    _ => m.frees_untyped = true,
                }
                // The block's references die with it (see the engine's `free`).
                if let Some(p) = ir.exprs.ty(*ptr).pointee() {
                    let p = env.resolve(p);
                    if p.is_pointer() || p.is_aggregate() {
                        m.add_mem(&p, env, classes, 0);
                    }
                }
            }
            StmtKind::Opaque { .. } => {
                m.all = true;
                m.writes_old = true;
            }
            _ => {}
        }
        if debug && m.all && !was_all {
            eprintln!(
                "MODALL {} {}",
                ir.name,
                crate::ir::display_stmt(ir, &ir.node(id).stmt.kind, crate::ir::Notation::C)
            );
        }
    }
    arities.sort_unstable();
    arities.dedup();
    (m, callees, arities)
}

// ---- regions ------------------------------------------------------------------------------

/// A memory region. Identifiers are interned per probe run by [`RegionNames`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    /// One scalar location of a variable whose address is never taken.
    Var(u32),
    /// Heap and address-taken memory holding values of a type class (outside struct fields).
    Mem(u32),
    /// Field `f` (interned) of structs of a type class.
    Field(u32, u32),
}

impl Region {
    pub fn is_var(self) -> bool {
        matches!(self, Region::Var(_))
    }
}

/// A set of regions, possibly "all memory" (every non-variable region: what an unknown
/// pointer may point into).
#[derive(Debug, PartialEq, Eq, Hash, Default)]
pub struct RegionSet {
    /// Sorted, deduplicated.
    regions: smallvec::SmallVec<[Region; 4]>,
    pub all_memory: bool,
}

/// Facts are cloned at every transfer: copy the regions as one block (`Region` is `Copy`)
/// rather than element by element as the derived `Clone` of `SmallVec` does.
impl Clone for RegionSet {
    fn clone(&self) -> Self {
        RegionSet {
            regions: smallvec::SmallVec::from_slice(&self.regions),
            all_memory: self.all_memory,
        }
    }
}

impl RegionSet {
    pub fn empty() -> Self {
        Self::default()
    }
    pub fn one(r: Region) -> Self {
        let mut s = Self::default();
        s.regions.push(r);
        s
    }
    pub fn all_memory() -> Self {
        RegionSet {
            regions: Default::default(),
            all_memory: true,
        }
    }
    pub fn insert(&mut self, r: Region) -> bool {
        match self.regions.binary_search(&r) {
            Ok(_) => false,
            Err(i) => {
                self.regions.insert(i, r);
                true
            }
        }
    }
    pub fn remove(&mut self, r: Region) {
        if let Ok(i) = self.regions.binary_search(&r) {
            self.regions.remove(i);
        }
    }
    pub fn contains(&self, r: Region) -> bool {
        self.regions.binary_search(&r).is_ok() || (self.all_memory && !r.is_var())
    }
    pub fn union_with(&mut self, other: &RegionSet) -> bool {
        let mut changed = false;
        for r in &other.regions {
            changed |= self.insert(*r);
        }
        if other.all_memory && !self.all_memory {
            self.all_memory = true;
            changed = true;
        }
        changed
    }
    pub fn intersects(&self, other: &RegionSet) -> bool {
        if self.all_memory && (other.all_memory || other.regions.iter().any(|r| !r.is_var())) {
            return true;
        }
        if other.all_memory && self.regions.iter().any(|r| !r.is_var()) {
            return true;
        }
        // Both sorted: merge walk.
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.regions, &other.regions);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty() && !self.all_memory
    }
    pub fn len(&self) -> usize {
        self.regions.len() + usize::from(self.all_memory)
    }
    pub fn iter(&self) -> impl Iterator<Item = Region> + '_ {
        self.regions.iter().copied()
    }
    pub fn retain(&mut self, mut f: impl FnMut(Region) -> bool) {
        self.regions.retain(|r| f(*r));
    }
    pub fn is_subset(&self, other: &RegionSet) -> bool {
        (!self.all_memory || other.all_memory) && self.regions.iter().all(|r| other.contains(*r))
    }
}

/// What a variable-rooted location is: the variable and the field path to a scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VarPath {
    pub root: VarRoot,
    pub fields: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VarRoot {
    /// (function index in the probe's program, local)
    Local(u32, LocalId),
    Global(String),
    /// The shadow of a formal used while unmapping a call (paper Figure 5).
    Shadow(u32),
    /// A caller frame's local seen from a callee (depth, function index, local).
    Frozen(u8, u32, LocalId),
}

/// Interning of the names regions are made of, for one probe run.
#[derive(Default, Debug)]
pub struct RegionNames {
    vars: FxHashMap<VarPath, u32>,
    var_list: Vec<VarPath>,
    classes: FxHashMap<String, u32>,
    class_list: Vec<String>,
    names: FxHashMap<String, u32>,
    name_list: Vec<String>,
}

impl RegionNames {
    pub fn var(&mut self, v: VarPath) -> Region {
        if let Some(&i) = self.vars.get(&v) {
            return Region::Var(i);
        }
        let i = self.var_list.len() as u32;
        self.var_list.push(v.clone());
        self.vars.insert(v, i);
        Region::Var(i)
    }
    pub fn var_path(&self, r: u32) -> &VarPath {
        &self.var_list[r as usize]
    }
    pub fn class(&mut self, c: &str) -> u32 {
        if let Some(&i) = self.classes.get(c) {
            return i;
        }
        let i = self.class_list.len() as u32;
        self.class_list.push(c.to_string());
        self.classes.insert(c.to_string(), i);
        i
    }
    pub fn class_name(&self, c: u32) -> &str {
        &self.class_list[c as usize]
    }
    pub fn name(&mut self, n: &str) -> u32 {
        if let Some(&i) = self.names.get(n) {
            return i;
        }
        let i = self.name_list.len() as u32;
        self.name_list.push(n.to_string());
        self.names.insert(n.to_string(), i);
        i
    }
    pub fn name_of(&self, n: u32) -> &str {
        &self.name_list[n as usize]
    }
}

/// A readable region name for messages and debugging.
pub struct RegionDisplay<'a>(pub &'a RegionNames, pub Region);

impl fmt::Display for RegionDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Region::Var(i) => {
                let v = self.0.var_path(i);
                match &v.root {
                    VarRoot::Local(func, l) => write!(f, "local{}#{}", func, l.0)?,
                    VarRoot::Global(g) => write!(f, "{}", crate::ir::shown_global(g))?,
                    VarRoot::Shadow(i) => write!(f, "shadow{i}")?,
                    VarRoot::Frozen(d, func, l) => write!(f, "frame-{d}:local{}#{}", func, l.0)?,
                }
                for fld in &v.fields {
                    write!(f, ".{}", self.0.name_of(*fld))?;
                }
                Ok(())
            }
            Region::Mem(c) => write!(f, "[{}]", self.0.class_name(c)),
            Region::Field(c, n) => write!(f, "[{}].{}", self.0.class_name(c), self.0.name_of(n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_sets_intersect_and_union() {
        let mut a = RegionSet::one(Region::Var(1));
        a.insert(Region::Mem(2));
        let b = RegionSet::one(Region::Mem(2));
        assert!(a.intersects(&b));
        assert!(!RegionSet::one(Region::Var(3)).intersects(&b));
        // "All memory" meets every non-variable region but no variable.
        let all = RegionSet::all_memory();
        assert!(all.intersects(&b));
        assert!(!all.intersects(&RegionSet::one(Region::Var(1))));
        let mut c = RegionSet::empty();
        assert!(c.union_with(&a));
        assert!(!c.union_with(&a));
        assert!(c.is_subset(&a) && a.is_subset(&c));
    }

    #[test]
    fn writing_only_blocks_just_allocated_does_not_write_old_memory() {
        let src = "#include <stdlib.h>\n\
                   struct n { int v; struct n *next; };\n\
                   struct n *make(int v, struct n *next) {\n\
                     struct n *p = malloc(sizeof *p);\n\
                     if (p == NULL) return NULL;\n\
                     p->v = v; p->next = next; return p; }\n\
                   void link(struct n *a, struct n *b) { a->next = b; }\n\
                   void drop(struct n *a) { free(a); }\n\
                   struct n *shared(int v) { struct n *p = malloc(sizeof *p); struct n *q = p;\n\
                     if (p == NULL) return NULL; q->v = v; return p; }\n";
        let (env, irs) = crate::ir::lower_snippet(src);
        let classes = TypeClasses::from_facts(std::iter::empty());
        let own = |name: &str| {
            let ir = irs.iter().find(|ir| ir.name == name).expect("the function");
            let fresh = crate::probe::sites::fresh_writes(ir);
            own_writes(ir, &env, &classes, &|_| CalleeKind::Unknown, &|n| {
                fresh.contains_key(&n)
            })
            .0
        };
        let make = own("make");
        assert!(make.allocates && !make.writes_old, "{make:?}");
        assert!(own("link").writes_old);
        assert!(own("drop").writes_old);
        // A write through a copy of the pointer is not seen as fresh.
        assert!(own("shared").writes_old);
    }

    #[test]
    fn a_free_and_null_helper_unifies_nothing_and_writes_its_callers_slots() {
        let src = "#include <stdlib.h>\n\
                   struct a { struct a *n; }; struct b { struct b *m; };\n\
                   void mem_free(void *ptr) { void **pp = (void **) ptr; free(*pp); *pp = 0; }\n\
                   void clear(struct a **pa) { *pa = 0; }\n\
                   void f(struct a *x, struct b *y) { mem_free(&x); mem_free(&y); }\n";
        let (env, irs) = crate::ir::lower_snippet(src);
        let irs: Vec<std::sync::Arc<FunctionIr>> =
            irs.into_iter().map(std::sync::Arc::new).collect();
        let callee = |n: &str| irs.iter().find(|f| f.name == n).cloned();
        let facts: Vec<TypeFacts> = irs
            .iter()
            .map(|ir| TypeFacts::of_function(ir, &env, &callee))
            .collect();
        let classes = TypeClasses::from_facts(&facts);
        let pa = Type::pointer_to(Type::Struct("a".into()));
        let pb = Type::pointer_to(Type::Struct("b".into()));
        assert_ne!(classes.class_of(&pa), classes.class_of(&pb));
        let own = |name: &str| {
            let ir = irs.iter().find(|ir| ir.name == name).expect("the function");
            own_writes(ir, &env, &classes, &|_| CalleeKind::Unknown, &|_| false).0
        };
        assert!(own("mem_free").generic_slots);
        assert!(!own("clear").generic_slots);
    }

    #[test]
    fn casts_between_structs_unify_and_collapse() {
        let src = "struct a { struct a *n; }; struct b { struct b *m; };\n\
                   void f(struct a *x) { struct b *y = (struct b *)x; y->m = 0; }\n\
                   void g(struct a *p) { void *v = p; struct a *q = v; q->n = 0; }\n";
        let (env, irs) = crate::ir::lower_snippet(src);
        let irs: Vec<std::sync::Arc<FunctionIr>> =
            irs.into_iter().map(std::sync::Arc::new).collect();
        let callee = |n: &str| irs.iter().find(|f| f.name == n).cloned();
        let facts: Vec<TypeFacts> = irs
            .iter()
            .map(|ir| TypeFacts::of_function(ir, &env, &callee))
            .collect();
        let classes = TypeClasses::from_facts(&facts);
        let a = classes.class_of(&Type::Struct("a".into()));
        let b = classes.class_of(&Type::Struct("b".into()));
        assert_eq!(a, b);
        assert!(classes.is_collapsed(&a));
        // A void* conduit that sees only one concrete type unifies nothing else.
        assert_eq!(classes.class_of(&Type::Int), "int");
    }
}
