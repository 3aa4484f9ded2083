//! Disjointness (`e # w` of Figure 2) and the §4.8 questions built on it: writes into fresh
//! blocks (`apart_from_fresh`), locations outside a region's tags (`outside_tags`), pointer
//! values known to differ (`distinct_values`) and addresses a write leaves unchanged
//! (`unchanged_by`).

use super::Engine;
use crate::ir::{BinOp, NodeId, Type};
use crate::probe::FuncId;
use crate::probe::expr::{Arena, E, EKind, Sym};
use crate::probe::state::{Fact, PtrRel, miss};
use crate::regions::RegionSet;
use smallvec::SmallVec;

impl<'p> Engine<'p> {
    /// `e # w`: no memory read of `e` is in `w` (or, writing a fresh block, none reads it).
    pub(super) fn disjoint(&mut self, e: E, w: &RegionSet) -> bool {
        if !self.arena.reads(e).intersects(w) {
            return true;
        }
        let Some(n) = self.cursor.fresh_base else {
            return false;
        };
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.arena.mems(e, &mut mems);
        mems.into_iter().all(|m| match *self.arena.kind(m) {
            EKind::Deref(x) => !self.arena.pt(x).intersects(w) || self.apart_from_fresh(x, n),
            _ => true,
        })
    }

    /// Whether the location at address `x` is outside the fresh block of local `n`: its
    /// block pointer is a variable's address, or a value read from any location but `n`
    /// (no other location holds a pointer into that block).
    fn apart_from_fresh(&self, x: E, n: Sym) -> bool {
        let mut z = x;
        loop {
            match *self.arena.kind(z) {
                EKind::Field(b, _) => z = b,
                EKind::Bin(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, l, _)
                    if self.arena.ty(l).is_pointer_like() =>
                {
                    z = l
                }
                _ => break,
            }
        }
        match *self.arena.kind(z) {
            EKind::Addr(_) | EKind::Int(_) | EKind::Num => true,
            // A value read from anywhere but `n` itself: no other location holds a pointer
            // into the block.
            EKind::Deref(a) => {
                !matches!(*self.arena.kind(a), EKind::Addr(s) if s == n) && !self.has_unknown(a)
            }
            EKind::Bin(..) | EKind::Field(..) | EKind::Unknown => false,
        }
    }

    /// The local whose fresh block statement `node` of `func` writes, if any.
    pub(super) fn fresh_write(&mut self, func: FuncId, node: NodeId) -> Option<Sym> {
        let prog = self.prog;
        let fw = self
            .caches
            .fresh_writes
            .entry(func)
            .or_insert_with(|| prog.fresh_writes(func));
        fw.get(&node).map(|l| Sym::Local(func, *l))
    }

    /// `Miss(e, d)`, or `e` is a location of tagged regions that is none of their tag
    /// locations (a tagged region holds references only at its tags).
    pub(super) fn misses(&mut self, d: &Fact, e: E) -> bool {
        miss(&mut self.arena, d, e) || self.outside_tags(d, e)
    }

    /// Whether location `e` is in tagged regions of S only, and differs from each of their
    /// tag locations: then it holds no reference to the cell.
    pub(super) fn outside_tags(&mut self, d: &Fact, e: E) -> bool {
        if d.tags.is_empty() || d.regions.all_memory {
            return false;
        }
        let EKind::Deref(x) = *self.arena.kind(e) else {
            return false;
        };
        let p = self.arena.pt(x);
        if p.all_memory {
            return false;
        }
        for r in p.iter() {
            if !d.regions.contains(r) {
                continue;
            }
            let tags: SmallVec<[E; 4]> = d.tags_of(r).iter().map(|(_, y)| *y).collect();
            if tags.is_empty() {
                return false;
            }
            for y in tags {
                let Some(ya) = self.addr_of(y) else {
                    return false;
                };
                if !self.distinct_addrs(d, x, ya) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether addresses `x` and `y` are different locations: the same field of two blocks
    /// whose pointers differ.
    fn distinct_addrs(&mut self, d: &Fact, x: E, y: E) -> bool {
        if self.distinct_objects(x, y) || self.distinct_elements(x, y) {
            return true;
        }
        match (*self.arena.kind(x), *self.arena.kind(y)) {
            (EKind::Field(p, f), EKind::Field(q, g)) if f == g && p != q => {
                self.distinct_values(d, p, q)
            }
            _ => self.distinct_members(x, y),
        }
    }

    /// Whether pointers `x` and `y` are two different elements of one array: one base
    /// pointer plus indices that differ by a known nonzero number (`a + n` and `a + (n + 1)`,
    /// `*names` and `*names + 1`), counted in one element type that holds pointers or is a
    /// struct, so the two elements do not overlap. Every step of the arithmetic must count in
    /// that type (arithmetic on a cast to another pointer type has an untracked offset,
    /// `ir::lower`'s `casts_unit`), and `<number>`s may each be another value.
    pub(super) fn distinct_elements(&self, x: E, y: E) -> bool {
        let a = &self.arena;
        let ty = a.ty(x);
        if ty != a.ty(y) {
            return false;
        }
        let env = a.env();
        let elem = ty.pointee().map(|t| env.resolve(t));
        let whole = match &elem {
            Some(Type::Pointer(_)) => true,
            Some(t @ Type::Struct(_)) => env.struct_def(t).is_some_and(|d| !d.is_union),
            _ => false,
        };
        if !whole {
            return false;
        }
        let (Some((bx, (tx, kx))), Some((by, (ty_, ky)))) = (element_of(a, x), element_of(a, y))
        else {
            return false;
        };
        bx == by
            && tx == ty_
            && kx != ky
            && !crate::probe::state::mentions_unknown_value(a, bx)
            && tx
                .iter()
                .all(|(t, _)| !crate::probe::state::mentions_unknown_value(a, *t))
    }

    /// Whether addresses `x` and `y` lie in two different objects: two different variables,
    /// or a local whose address never reaches memory (`Program::unescaped_locals`) and a
    /// location reached through a pointer loaded from memory (nothing in memory can point to
    /// that local: it did not exist before its function started, and its address was never
    /// stored since). Member offsets and pointer arithmetic stay within their object.
    pub(super) fn distinct_objects(&mut self, x: E, y: E) -> bool {
        let (bx, by) = (self.object_base(x), self.object_base(y));
        match (*self.arena.kind(bx), *self.arena.kind(by)) {
            (EKind::Addr(s), EKind::Addr(t)) => s != t && distinct_variables(s, t),
            (EKind::Addr(Sym::Local(f, l)), other) | (other, EKind::Addr(Sym::Local(f, l))) => {
                matches!(other, EKind::Deref(_) | EKind::Int(_) | EKind::Num)
                    && self.unescaped(f, l)
            }
            _ => false,
        }
    }

    /// The address an address expression is an offset of (`&b->f`, `p + i` within `p`'s
    /// object).
    fn object_base(&self, mut e: E) -> E {
        loop {
            match *self.arena.kind(e) {
                EKind::Field(b, _) => e = b,
                EKind::Bin(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, l, _)
                    if self.arena.ty(l).is_pointer_like() =>
                {
                    e = l
                }
                _ => return e,
            }
        }
    }

    /// Whether local `l` of `f` is address-taken but its address never reaches memory.
    fn unescaped(&mut self, f: FuncId, l: crate::ir::LocalId) -> bool {
        let prog = self.prog;
        self.caches
            .unescaped
            .entry(f)
            .or_insert_with(|| prog.unescaped_locals(f))
            .contains(&l)
    }

    /// Whether addresses `x` and `y` are two different members of one struct object: field
    /// paths from the same base that part at a struct (not a union) with different member
    /// names, `p->a.b` and `p->c` (a path that is a prefix of the other may share its first
    /// member's address, and is not taken apart).
    fn distinct_members(&self, x: E, y: E) -> bool {
        let path = |a: &Arena, mut e: E| {
            let mut fields: SmallVec<[(E, u32); 4]> = SmallVec::new();
            while let EKind::Field(b, f) = *a.kind(e) {
                fields.push((b, f));
                e = b;
            }
            fields.reverse();
            (e, fields)
        };
        let (rx, px) = path(&self.arena, x);
        let (ry, py) = path(&self.arena, y);
        if rx != ry {
            return false;
        }
        for (&(bx, fx), &(_, fy)) in px.iter().zip(py.iter()) {
            if fx == fy {
                continue;
            }
            let env = self.arena.env();
            let sty = env.resolve(&self.arena.ty(bx).pointee().cloned().unwrap_or_default());
            return matches!(sty, Type::Struct(_))
                && env.struct_def(&sty).is_some_and(|def| !def.is_union);
        }
        false
    }

    /// Whether pointer values `p` and `q` differ: one is the fresh block being written and
    /// the other cannot point into it, or one references the cell and the other does not.
    pub(super) fn distinct_values(&mut self, d: &Fact, p: E, q: E) -> bool {
        if let Some(n) = self.cursor.fresh_base {
            let is_n = |a: &Arena, v: E| matches!(*a.kind(v), EKind::Deref(b) if matches!(*a.kind(b), EKind::Addr(s) if s == n));
            if (is_n(&self.arena, p) && self.apart_from_fresh(q, n))
                || (is_n(&self.arena, q) && self.apart_from_fresh(p, n))
            {
                return true;
            }
        }
        d.relations.contains(&PtrRel::new(p, q, false))
            || self.distinct_elements(p, q)
            || (d.is_hit(p) && miss(&mut self.arena, d, q))
            || (d.is_hit(q) && miss(&mut self.arena, d, p))
            || self.frames_apart(p, q)
            || self.fresh_apart(p, q)
            || self.fresh_apart(q, p)
    }

    /// Whether `q` is the value of a local holding a block nothing else points to yet, at
    /// the statement being applied (`sites::fresh_values`), and `p` a pointer that does not
    /// read that local: no other local and no location in memory points into that block, so
    /// `p` is another pointer (a list's `last` against the element being inserted).
    fn fresh_apart(&mut self, p: E, q: E) -> bool {
        let Some(point) = self.cursor.point else {
            return false;
        };
        if !matches!(point.at, super::frames::PointAt::Across) {
            return false;
        }
        let EKind::Deref(a) = *self.arena.kind(q) else {
            return false;
        };
        let EKind::Addr(Sym::Local(f, l)) = *self.arena.kind(a) else {
            return false;
        };
        if f != point.func || self.has_unknown(p) {
            return false;
        }
        if matches!(self.arena.kind(p), EKind::Int(_) | EKind::Num) {
            return false;
        }
        let prog = self.prog;
        let fresh = self
            .caches
            .fresh_values
            .entry(f)
            .or_insert_with(|| prog.fresh_values(f))
            .clone();
        fresh.fresh_before(point.node, l) && !self.arena.mentions(p, &|s| s == Sym::Local(f, l))
    }

    /// Whether location `e` of the fact is known not to be the written location `*e0`,
    /// though the regions overlap: neither address changes, and they differ.
    pub(super) fn apart_from_target(&mut self, d: &Fact, e: E, e0: E, w: &RegionSet) -> bool {
        let EKind::Deref(x) = *self.arena.kind(e) else {
            return false;
        };
        self.unchanged_by(x, w, e0) && self.unchanged_by(e0, w, e0) && self.distinct_addrs(d, x, e0)
    }

    /// Whether address `e` keeps its value across a write to location `*e0` in `w`: each
    /// memory read in it is outside `w`, or at an address that keeps its value and is another
    /// location than `*e0` by facts that hold before and after the write (the footprint and
    /// the chain, see `frames_apart`).
    pub(super) fn unchanged_by(&mut self, e: E, w: &RegionSet, e0: E) -> bool {
        if self.disjoint(e, w) {
            return true;
        }
        match *self.arena.kind(e) {
            EKind::Deref(a) => {
                a != e0
                    && self.unchanged_by(a, w, e0)
                    && (match (*self.arena.kind(a), *self.arena.kind(e0)) {
                        (EKind::Field(p, f), EKind::Field(q, g)) => {
                            f == g && self.frames_apart(p, q)
                        }
                        _ => false,
                    } || self.distinct_objects(a, e0))
            }
            EKind::Field(b, _) => self.unchanged_by(b, w, e0),
            EKind::Bin(_, l, r) => self.unchanged_by(l, w, e0) && self.unchanged_by(r, w, e0),
            EKind::Int(_) | EKind::Num | EKind::Addr(_) => true,
            EKind::Unknown => false,
        }
    }

    /// `E[*e0] # w`: every memory read of `e` other than the occurrences of `target` itself is
    /// disjoint from `w` (reads inside `target`'s address are checked too).
    pub(super) fn context_disjoint(&mut self, e: E, target: E, w: &RegionSet) -> bool {
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.arena.mems(e, &mut mems);
        let e0 = self.addr_of(target);
        mems.into_iter().all(|m| {
            if m == target {
                return true;
            }
            match *self.arena.kind(m) {
                EKind::Deref(x) => {
                    !self.arena.pt(x).intersects(w)
                        || self
                            .cursor
                            .fresh_base
                            .is_some_and(|n| self.apart_from_fresh(x, n))
                        || e0.is_some_and(|e0| self.unchanged_by(m, w, e0))
                }
                _ => true,
            }
        })
    }
}

/// Whether two different symbols name different variables. Frames of one local differ when
/// their depths are known; `ANCESTOR` stands for a frame the fact does not number, which may
/// be any of them.
fn distinct_variables(s: Sym, t: Sym) -> bool {
    use crate::probe::expr::ANCESTOR;
    match (s, t) {
        (Sym::Shadow(_), _) | (_, Sym::Shadow(_)) => {
            matches!((s, t), (Sym::Shadow(a), Sym::Shadow(b)) if a != b)
        }
        (Sym::Frozen(d, f, l), Sym::Frozen(e, g, m)) => {
            (f, l) != (g, m) || (d != e && d != ANCESTOR && e != ANCESTOR)
        }
        _ => true,
    }
}

/// An index as integer terms with signs plus a known number: `(err + 1) - first` is
/// `([err: +1, first: -1], 1)`. Terms are sorted, so two indices that differ only by a
/// number have equal term lists.
type Linear = (SmallVec<[(E, i8); 4]>, i64);

/// Pointer `e` as a base pointer and a linear index counted in elements of `e`'s type: `a +
/// (n + 1)` is `(a, [n], 1)`, `a - 2` is `(a, [], -2)`, `a` is `(a, [], 0)`. Only steps whose
/// result and base have `e`'s type are taken apart, so every count is in one element type.
fn element_of(a: &Arena, e: E) -> Option<(E, Linear)> {
    let ty = a.ty(e);
    let mut base = e;
    let mut lin: Linear = (SmallVec::new(), 0);
    for _ in 0..16 {
        let EKind::Bin(op @ (BinOp::Add | BinOp::Sub), l, r) = *a.kind(base) else {
            break;
        };
        if a.ty(base) != ty || a.ty(l) != ty || a.ty(r).is_pointer_like() {
            break;
        }
        linear_into(a, r, if op == BinOp::Sub { -1 } else { 1 }, &mut lin, 0)?;
        base = l;
    }
    lin.0.retain(|(_, s)| *s != 0);
    lin.0.sort_unstable();
    Some((base, lin))
}

/// Adds `sign * e` to `lin`, taking sums and differences apart (at most 8 terms).
fn linear_into(a: &Arena, e: E, sign: i8, lin: &mut Linear, depth: u32) -> Option<()> {
    if depth > 8 {
        return None;
    }
    match *a.kind(e) {
        EKind::Int(v) => {
            lin.1 = lin.1.checked_add(v.checked_mul(i64::from(sign))?)?;
        }
        EKind::Bin(op @ (BinOp::Add | BinOp::Sub), l, r) if !a.ty(e).is_pointer_like() => {
            linear_into(a, l, sign, lin, depth + 1)?;
            let s = if op == BinOp::Sub { -sign } else { sign };
            linear_into(a, r, s, lin, depth + 1)?;
        }
        _ => {
            if let Some(t) = lin.0.iter_mut().find(|(x, _)| *x == e) {
                t.1 = t.1.checked_add(sign)?;
            } else {
                if lin.0.len() >= 8 {
                    return None;
                }
                lin.0.push((e, sign));
            }
        }
    }
    Some(())
}
