//! The transfer functions of §4.3, applied backwards to one fact: assignment (Figure 3,
//! FILTER1–4 and SUBST1–2, with the §4.8 tags, relations and case splits), allocation,
//! `free`, `cond`, `scope` (block begin), nullification (scope end) and havoc (writes to
//! unknown places).

use super::Engine;
use crate::ir::{CmpOp, LocalId, LocalKind, Type};
use crate::probe::expr::{E, EKind, Sym};
use crate::probe::state::{
    Constraint, Fact, MAX_RELS, PtrRel, Rel, apply_tags, cleanup, infeasible, miss,
};
use crate::probe::{FuncId, Loc};
use crate::regions::{Region, RegionSet, VarRoot};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

/// Nesting of struct members copied field by field (as the lowering's struct copies).
const MAX_COPY_DEPTH: u32 = 4;

pub(super) enum AllocResult {
    Contradiction,
    /// The allocation may have made the cell. `evidence`: its destination is itself a hit
    /// expression (the reference was tracked all the way); without it the fact had lost
    /// track of the reference and the allocation is only a candidate.
    Validated {
        evidence: bool,
    },
    Continue(Box<Fact>),
}

impl<'p> Engine<'p> {
    /// `*e0 ← e1` (Figure 3). `None` is ⊥ (a contradiction).
    pub(super) fn assign(&mut self, d: &Fact, e0: E, e1: E) -> Option<Fact> {
        let w = self.arena.pt(e0);
        let target = self.arena.deref(e0);
        // The pre-state: S, its tags and the taint first (`grow_s` sets the taint when the
        // write may land anywhere); H, M and the constraints are derived below.
        let mut f = Fact {
            regions: d.regions.clone(),
            hits: SmallVec::new(),
            misses: SmallVec::new(),
            constraints: SmallVec::new(),
            tags: self.tags_past_write(&d.tags, &w, Some((target, e1))),
            relations: SmallVec::new(),
            tainted: d.tainted,
            assumed: d.assumed,
            unknown_top: d.unknown_top.clone(),
            unknown_drop: d.unknown_drop,
        };
        // A hit stored into a region only an unfollowed callee's write put in S: the path
        // loses the block only if that callee dropped the stored reference.
        if f.unknown_drop.is_none() && d.is_hit(e1) && d.unknown_top.intersects(&w) {
            f.unknown_drop = w
                .iter()
                .filter(|r| d.unknown_top.contains(*r))
                .find_map(|r| self.verdict.unknown_writer(r));
        }
        f.normalize_tags();
        // A function pointer never held a reference to a heap block: writing one destroys
        // none (this matters where a struct's fields share one region, as after a cast
        // between struct types: `a->format_close = f;` must not make that region ⊤).
        if !self.holds_code_pointer(e0) {
            self.grow_s(&mut f, &w, Some(target));
        }
        let e1_disjoint = self.disjoint(e1, &w);
        let e1_misses = self.misses(d, e1);
        let e1_hits = d.is_hit(e1);
        // Storing the hit into a tagged region where it was not: the fact survives only if the
        // written location is one of the tag locations. Where both are reached from different
        // inputs (`*ret_val = value;` then `*ret_type = name;` for two out-parameters), that
        // needs the caller to pass the same pointer twice: not evidence of a leak.
        if e1_hits && !f.assumed && !d.is_hit(target) && self.needs_input_alias(d, &w, target) {
            f.assumed = true;
        }
        let e0_disjoint = self.disjoint(e0, &w);
        let mut h2: Vec<E> = Vec::new();
        let mut m2: Vec<E> = Vec::new();
        for (sign_hit, list) in [(true, d.hits.clone()), (false, d.misses.clone())] {
            for e in list {
                let out = if sign_hit { &mut h2 } else { &mut m2 };
                // FILTER1 (or known to be another location than the written one)
                if self.disjoint(e, &w) || self.apart_from_target(d, e, e0, &w) {
                    out.push(e);
                } else if let EKind::Deref(x) = *self.arena.kind(e) {
                    let x_disjoint = self.unchanged_by(x, &w, e0);
                    // FILTER4: the right-hand side keeps its value if it is overwritten by it.
                    if e == e1 && x_disjoint {
                        out.push(e);
                    } else if x_disjoint && e1_disjoint {
                        // FILTER2 / FILTER3: the written value's status differs from e's, so e
                        // is not the written location.
                        if (sign_hit && e1_misses) || (!sign_hit && e1_hits) {
                            out.push(e);
                        }
                    }
                }
                // SUBST1
                if self.arena.contains(e, target) && self.context_disjoint(e, target, &w) {
                    let s = self.arena.substitute(e, target, e1);
                    let out = if sign_hit { &mut h2 } else { &mut m2 };
                    out.push(s);
                } else if sign_hit
                    && e1_disjoint
                    && self.arena.contains(e, target)
                    && let Some(s) = self.through_written(d, e, target, e0, e1, &w)
                {
                    // SUBST3
                    h2.push(s);
                }
            }
        }
        // SUBST2: the written location missed, so the written value misses. Not when the
        // cell's own block is written a pointer into itself (`list->next = list` of an
        // `INIT_LIST_HEAD` on a member, `n->self = n`): a reference from the block to itself
        // keeps nothing reachable, and a block whose only references are its own is leaked
        // (LeakSanitizer reports it), so storing one cannot refute the leak. Nor when the
        // value stored into the cell's block is computed into some block (`base + k`, `&b->f`)
        // whose base is not known yet to be the cell: libpcap's `p->priv = chunk + off` runs
        // after `p = chunk`, so backwards `chunk` becomes a hit only later, and a miss of
        // `chunk + off` would then refute a block that is referenced only from itself. (A
        // plain pointer stored into the cell, `l->right = n`, still misses: the paper's
        // routines rely on it, and LeakSanitizer's ground truth agrees there.)
        let inside_cell = {
            let root = crate::probe::state::block_root(&self.arena, e0);
            let value_root = crate::probe::state::block_root(&self.arena, e1);
            root != e0 && d.is_hit(root) && (root == value_root || value_root != e1)
        };
        if !inside_cell && (e0_disjoint || self.unchanged_by(e0, &w, e0)) && self.misses(d, target)
        {
            m2.push(e1);
        }
        // Constraints transform like miss expressions (FILTER1, FILTER4, SUBST1); a constraint
        // whose expression becomes a constant is evaluated.
        let mut c2: SmallVec<[Constraint; 2]> = SmallVec::new();
        for c in d.constraints.clone() {
            // A constraint whose expression would outgrow `MAX_EXPR_SIZE` is dropped, as one
            // that became a number: a weaker fact, so no contradiction is invented.
            let earlier = self.arena.take_overflow();
            let e2 = self.past_write(d, c.e, &w, e0, e1);
            let grew = self.arena.take_overflow();
            self.arena.note_overflow(earlier);
            let Some(e2) = e2.filter(|_| !grew) else {
                continue;
            };
            match *self.arena.kind(e2) {
                EKind::Int(v) => {
                    if !c.rel.eval(v, c.k) {
                        return None;
                    }
                }
                EKind::Num | EKind::Unknown => {}
                _ => c2.push(Constraint { e: e2, ..c }),
            }
        }
        f.hits = h2.into_iter().collect();
        f.misses = m2.into_iter().collect();
        f.constraints = c2;
        // Relations transform like constraints; one side becoming a number makes a constraint.
        for r in d.relations.clone() {
            let earlier = self.arena.take_overflow();
            let (l, rr) = (
                self.past_write(d, r.l, &w, e0, e1),
                self.past_write(d, r.r, &w, e0, e1),
            );
            let grew = self.arena.take_overflow();
            self.arena.note_overflow(earlier);
            let (Some(l), Some(rr), false) = (l, rr, grew) else {
                continue;
            };
            if !self.add_rel(&mut f, l, rr, r.eq) {
                return None;
            }
        }
        f.normalize();
        self.finish_fact(f)
    }

    /// `*e0 ← e1`, split when a hit location may or may not be the written one (see
    /// `split_candidate`): one case writes that very location (`p == q`), the other leaves
    /// it alone (`p != q`). Each case that is not contradicted is returned.
    pub(super) fn assign_split(&mut self, d: &Fact, e0: E, e1: E) -> SmallVec<[Fact; 2]> {
        let mut out = SmallVec::new();
        match self
            .split_candidate(d, e0, e1)
            .or_else(|| self.through_written_candidate(d, e0, e1))
        {
            Some((x, p, q)) => {
                for eq in [true, false] {
                    let mut c = d.clone();
                    c.relations.push(PtrRel::new(p, q, eq));
                    c.assumed |= eq;
                    c.normalize();
                    let dest = if eq { x } else { e0 };
                    out.extend(self.assign(&c, dest, e1));
                }
            }
            None => out.extend(self.assign(d, e0, e1)),
        }
        out
    }

    /// A hit that reads the written field again through the value written (`q->f->f` past
    /// `q->f = v`): its location is `v->f`, the written one only if `v == q`. The assignment
    /// is split on that (`(e0, v, q)`: both cases write `e0`); with `v != q` SUBST3 of
    /// `assign` carries the hit over as `v->f`, with `v == q` (a block that is its own
    /// successor) the hit is the written value and the case is `assumed`. This is the cursor
    /// step `p->next = new_node(); p = p->next;` of a list built in a loop: the hit
    /// `p->next->next` (the node left behind was its own successor's `next`) reaches the
    /// allocator wrapper's `malloc` as the new block's own field.
    fn through_written_candidate(&mut self, d: &Fact, e0: E, e1: E) -> Option<(E, E, E)> {
        if d.relations.len() >= MAX_RELS || d.hits.is_empty() {
            return None;
        }
        let EKind::Field(q, f) = *self.arena.kind(e0) else {
            return None;
        };
        let w = self.arena.pt(e0);
        if w.all_memory
            || self.has_unknown(q)
            || self.has_unknown(e1)
            || !self.disjoint(e0, &w)
            || !self.disjoint(e1, &w)
            || !self.arena.ty(e1).is_pointer_like()
            || matches!(*self.arena.kind(e1), EKind::Int(_) | EKind::Num)
            || e1 == q
        {
            return None;
        }
        if self.distinct_values(d, e1, q) || d.relations.contains(&PtrRel::new(e1, q, true)) {
            return None;
        }
        let target = self.arena.deref(e0);
        let through = d.hits.clone().into_iter().any(|e| {
            let EKind::Deref(x) = *self.arena.kind(e) else {
                return false;
            };
            matches!(*self.arena.kind(x), EKind::Field(b, g) if b == target && g == f)
        });
        through.then_some((e0, e1, q))
    }

    /// Whether location `target` (written, in regions `w`) can hold a reference of fact `d`
    /// only by being one of its tag locations reached from another input: every region of
    /// `w` in S is tagged, no tag is `target` itself, and `target` and each tag are rooted at
    /// different parameters or globals.
    fn needs_input_alias(&mut self, d: &Fact, w: &RegionSet, target: E) -> bool {
        if w.all_memory || d.regions.all_memory {
            return false;
        }
        let Some(root) = self.input_root(target) else {
            return false;
        };
        let mut any = false;
        for r in w.iter() {
            if !d.regions.contains(r) {
                continue;
            }
            let tags: SmallVec<[E; 4]> = d.tags_of(r).iter().map(|(_, y)| *y).collect();
            if tags.is_empty() {
                return false;
            }
            for y in tags {
                if y == target || self.input_root(y).is_none_or(|ry| ry == root) {
                    return false;
                }
            }
            any = true;
        }
        any
    }

    /// The parameter or global a location is reached from (`*p`, `p->f`, `*g`), if any.
    fn input_root(&mut self, e: E) -> Option<Sym> {
        let mut cur = e;
        loop {
            match *self.arena.kind(cur) {
                EKind::Deref(x) | EKind::Field(x, _) => cur = x,
                EKind::Addr(Sym::Global(g)) => return Some(Sym::Global(g)),
                EKind::Addr(Sym::Local(f, l)) => {
                    let b = self.body(f);
                    return (b.local(l).kind == LocalKind::Param).then_some(Sym::Local(f, l));
                }
                _ => return None,
            }
        }
    }

    /// Whether the location at `e0` holds a function pointer (by its static type).
    fn holds_code_pointer(&self, e0: E) -> bool {
        let env = self.arena.env();
        let Some(t) = self.arena.ty(e0).pointee() else {
            return false;
        };
        match env.resolve(t) {
            Type::Pointer(inner) => matches!(env.resolve(&inner), Type::Function(_)),
            _ => false,
        }
    }

    /// `*e0 ← *src` for a value of the type `e0` points to: a struct (a call's result landing
    /// in its destination) is copied field by field, nested structs recursively, each field
    /// write split as `assign_split` does. Without a known layout, or past the nesting
    /// guard, it is one whole-value write.
    pub(super) fn assign_copy(&mut self, d: &Fact, e0: E, src: E) -> SmallVec<[Fact; 2]> {
        let mut out = SmallVec::new();
        self.assign_copy_rec(d, e0, src, 0, &mut out);
        out
    }

    fn assign_copy_rec(
        &mut self,
        d: &Fact,
        e0: E,
        src: E,
        depth: u32,
        out: &mut SmallVec<[Fact; 2]>,
    ) {
        let Some(members) = self.copied_members(e0, depth) else {
            let v = self.arena.deref(src);
            out.extend(self.assign_split(d, e0, v));
            return;
        };
        // Backward: the last field written is undone first. The fields are distinct
        // locations, so the order only matters to which facts are split.
        let mut cur: SmallVec<[Fact; 2]> = smallvec::smallvec![d.clone()];
        for name in members.iter().rev() {
            let da = self.field_addr(e0, name);
            let sa = self.field_addr(src, name);
            let mut next: SmallVec<[Fact; 2]> = SmallVec::new();
            for f in &cur {
                self.assign_copy_rec(f, da, sa, depth + 1, &mut next);
            }
            if next.is_empty() {
                return;
            }
            cur = next;
        }
        out.extend(cur);
    }

    /// The members a copy into the object at address `e0` goes through one by one, in
    /// declaration order: those of a struct (not a union) with members, nested `depth` copies
    /// deep at most (`MAX_COPY_DEPTH`); `None` for anything else, copied as one value. A
    /// member declared in two arms of an undecided `#if` is one location, listed once.
    pub(super) fn copied_members(&self, e0: E, depth: u32) -> Option<Vec<String>> {
        if depth >= MAX_COPY_DEPTH {
            return None;
        }
        let env = self.arena.env();
        let ty = env.resolve(&self.arena.ty(e0).pointee().cloned().unwrap_or_default());
        if !matches!(ty, Type::Struct(_)) {
            return None;
        }
        let def = env
            .struct_def(&ty)
            .filter(|def| !def.is_union && !def.fields.is_empty())?;
        let mut names: Vec<String> = Vec::new();
        for fd in &def.fields {
            if !names.contains(&fd.name) {
                names.push(fd.name.clone());
            }
        }
        Some(names)
    }

    /// SUBST3: hit `e` past `*e0 ← e1` when its context reads the written region: past the
    /// write, `target` (`*e0`) reads `e1`, and every other read of `e[e1/target]` is of a
    /// location that keeps its address and is known to be another than `*e0` (a relation
    /// `e1 != q` from the split of `through_written_candidate`), so it reads before the write
    /// what it reads after. `None` when one read may be the written location.
    fn through_written(
        &mut self,
        d: &Fact,
        e: E,
        target: E,
        e0: E,
        e1: E,
        w: &RegionSet,
    ) -> Option<E> {
        let s = self.arena.substitute(e, target, e1);
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.arena.mems(s, &mut mems);
        let mut inside: SmallVec<[E; 8]> = SmallVec::new();
        self.arena.mems(e1, &mut inside);
        for m in mems {
            let EKind::Deref(x) = *self.arena.kind(m) else {
                continue;
            };
            if inside.contains(&m) || !self.arena.pt(x).intersects(w) {
                continue;
            }
            if !self.apart_from_target(d, m, e0, w) {
                return None;
            }
        }
        Some(s)
    }

    /// A hit location in the written field of another block, which the write may or may not
    /// reach: `(its address, its block pointer, the written block pointer)`. The assignment
    /// is then split on whether the two block pointers are equal.
    fn split_candidate(&mut self, d: &Fact, e0: E, e1: E) -> Option<(E, E, E)> {
        if d.relations.len() >= MAX_RELS || d.hits.is_empty() {
            return None;
        }
        let EKind::Field(q, f) = *self.arena.kind(e0) else {
            return None;
        };
        if self.has_unknown(q) {
            return None;
        }
        let w = self.arena.pt(e0);
        if w.all_memory || !self.disjoint(e0, &w) {
            return None;
        }
        // FILTER2 keeps every hit when the written value misses.
        if self.disjoint(e1, &w) && self.misses(d, e1) {
            return None;
        }
        let target = self.arena.deref(e0);
        for e in d.hits.clone() {
            if e == target {
                continue;
            }
            let EKind::Deref(x) = *self.arena.kind(e) else {
                continue;
            };
            let EKind::Field(p, g) = *self.arena.kind(x) else {
                continue;
            };
            if g != f || p == q || self.has_unknown(p) {
                continue;
            }
            if self.disjoint(e, &w) || !self.disjoint(x, &w) {
                continue;
            }
            if self.distinct_values(d, p, q) || d.relations.contains(&PtrRel::new(p, q, true)) {
                continue;
            }
            return Some((x, p, q));
        }
        None
    }

    /// `e` past the write `*e0 ← e1` to `w`, like a miss expression (FILTER1, FILTER4,
    /// SUBST1); `None` when the write may change it.
    fn past_write(&mut self, d: &Fact, e: E, w: &RegionSet, e0: E, e1: E) -> Option<E> {
        let target = self.arena.deref(e0);
        if self.disjoint(e, w) {
            return Some(e);
        }
        // Another location than the written one, by the same test as FILTER1's for hits and
        // misses (`ev->type` across `ev->code = c` where the fields share a region).
        if self.apart_from_target(d, e, e0, w) {
            return Some(e);
        }
        if e == e1
            && let EKind::Deref(x) = *self.arena.kind(e)
            && self.disjoint(x, w)
        {
            return Some(e);
        }
        if self.arena.contains(e, target) && self.context_disjoint(e, target, w) {
            return Some(self.arena.substitute(e, target, e1));
        }
        // Arithmetic (a difference constraint's `a->capacity - a->size`): each operand on its
        // own, as the locations they read may be told apart one by one.
        if let EKind::Bin(op, l, r) = *self.arena.kind(e) {
            let l2 = self.past_write(d, l, w, e0, e1)?;
            let r2 = self.past_write(d, r, w, e0, e1)?;
            let ty = self.arena.ty(e).clone();
            return Some(self.arena.mk(EKind::Bin(op, l2, r2), &ty));
        }
        None
    }

    /// A relation between `l` and `r` added to `f`: evaluated when both are numbers, a
    /// constraint when one is, nothing when a value is unknown. `false`: it cannot hold.
    fn add_rel(&mut self, f: &mut Fact, l: E, r: E, eq: bool) -> bool {
        let rel = if eq { Rel::Eq } else { Rel::Ne };
        match (*self.arena.kind(l), *self.arena.kind(r)) {
            (EKind::Int(a), EKind::Int(b)) => return (a == b) == eq,
            (EKind::Num | EKind::Unknown, _) | (_, EKind::Num | EKind::Unknown) => {}
            (EKind::Int(k), _) => f.constraints.push(Constraint { e: r, rel, k }),
            (_, EKind::Int(k)) => f.constraints.push(Constraint { e: l, rel, k }),
            _ => f.relations.push(PtrRel::new(l, r, eq)),
        }
        true
    }

    /// The tags past a write to `w` (§4.8): a tag location whose address the write does not
    /// change stays; for `*e0 ← e1` (`subst` is `(*e0, e1)`), one whose address reads `*e0`
    /// is rewritten like SUBST1; any other makes its region ⊤.
    fn tags_past_write(
        &mut self,
        t: &[(Region, E)],
        w: &RegionSet,
        subst: Option<(E, E)>,
    ) -> SmallVec<[(Region, E); 2]> {
        let mut kept: SmallVec<[(Region, E); 2]> = SmallVec::new();
        let mut top: SmallVec<[Region; 2]> = SmallVec::new();
        let e0 = subst.and_then(|(target, _)| self.addr_of(target));
        for &(r, x) in t {
            let Some(addr) = self.addr_of(x) else {
                top.push(r);
                continue;
            };
            if self.disjoint(addr, w) || e0.is_some_and(|e0| self.unchanged_by(addr, w, e0)) {
                kept.push((r, x));
                continue;
            }
            match subst {
                Some((target, e1))
                    if self.arena.contains(addr, target)
                        && self.context_disjoint(addr, target, w) =>
                {
                    let a2 = self.arena.substitute(addr, target, e1);
                    let x2 = self.arena.deref(a2);
                    kept.push((r, x2));
                }
                _ => top.push(r),
            }
        }
        kept.retain(|(r, _)| !top.contains(r));
        kept
    }

    /// S grows by the regions of `w` that may hold a pointer: memory written at location
    /// `loc` (the region is tagged with it, see [`Fact::add_written`]) or, with `None`, written
    /// somewhere unknown (the region becomes ⊤).
    pub(super) fn grow_s(&mut self, f: &mut Fact, w: &RegionSet, loc: Option<E>) {
        for r in w.iter() {
            if self.arena.may_hold_pointer(r) {
                f.add_written(r, loc);
            }
        }
        if w.all_memory {
            // A write that may land anywhere (through a pointer of unknown type): past it,
            // the facts no longer say where other references could be, so an allocation
            // reached from here is not evidence of a leak.
            f.regions.all_memory = true;
            f.tainted = true;
        }
        f.normalize_tags();
    }

    pub(super) fn finish_fact(&mut self, mut f: Fact) -> Option<Fact> {
        f.normalize();
        apply_tags(&mut self.arena, &mut f);
        if infeasible(&mut self.arena, &f) {
            return None;
        }
        cleanup(&mut self.arena, &mut f);
        if f.hits.iter().any(|e| self.has_unknown(*e)) {
            f.tainted = true;
        }
        Some(f)
    }

    /// `*e0 ← alloc`. `fresh_contents`: the allocator hands out memory nothing was stored in
    /// (the C library's `malloc`, `calloc`, `strdup`…; not `realloc`, which copies the old
    /// block, nor a configured allocator, which may initialise what it returns).
    pub(super) fn alloc(&mut self, d: &Fact, e0: E, fresh_contents: bool) -> AllocResult {
        let w = self.arena.pt(e0);
        let target = self.arena.deref(e0);
        let e0_disjoint = self.disjoint(e0, &w);
        if fresh_contents && e0_disjoint {
            if self.reads_new_block(d, target) {
                return AllocResult::Contradiction;
            }
            // The cell is this block, and another pointer is assumed equal to it: a value
            // the write does not change was computed before the block existed, so it points
            // elsewhere (or dangles, which no defined run then uses).
            if d.is_hit(target) {
                for r in d.relations.clone() {
                    let other = if r.l == target {
                        r.r
                    } else if r.r == target {
                        r.l
                    } else {
                        continue;
                    };
                    if r.eq && self.disjoint(other, &w) {
                        return AllocResult::Contradiction;
                    }
                }
            }
        }
        let unaliased_hit = d
            .hits
            .clone()
            .into_iter()
            .any(|e| match *self.arena.kind(e) {
                EKind::Deref(x) => !self.arena.pt(x).intersects(&w),
                _ => false,
            });
        if unaliased_hit && d.is_hit(target) && e0_disjoint {
            return AllocResult::Contradiction;
        }
        if unaliased_hit || (self.misses(d, target) && e0_disjoint) {
            // Another block (or NULL) lands in `*e0`: like the paper's `*e0 ← 0` for hits and
            // misses, but its value is unknown to the constraints.
            let fresh = self.arena.mk(EKind::Num, &Type::Int);
            return match self.assign(d, e0, fresh) {
                Some(f) => AllocResult::Continue(Box::new(f)),
                None => AllocResult::Contradiction,
            };
        }
        AllocResult::Validated {
            evidence: d.is_hit(target),
        }
    }

    /// `free(e)`: the cell is not the freed block, and the references the block held die
    /// with it. Backwards, the block's pointer fields are written with NULL (`*e.f ← 0`), so
    /// before the free they may have referenced the cell. Through an untyped pointer
    /// (`void *`, `char *`) the block's layout is unknown and its contents are assumed to hold
    /// no reference (an unsound assumption listed in ARCHITECTURE.md).
    pub(super) fn free(&mut self, d: &Fact, e: E) -> Option<Fact> {
        if d.is_hit(e) {
            return None;
        }
        let mut f = d.clone();
        if !miss(&mut self.arena, d, e) {
            f.misses.push(e);
            // The miss may be the last tag of a region (an address-taken local's memory):
            // then the region leaves S, as after any other transfer; left in S, a join with
            // a path where `e` was never written would drop the miss and keep the region.
            f = self.finish_fact(f)?;
        }
        let pointee = self
            .arena
            .env()
            .resolve(&self.arena.ty(e).pointee().cloned().unwrap_or_default());
        if pointee.is_pointer() || pointee.is_aggregate() {
            return self.nullify_typed(&f, e, &pointee, 0);
        }
        Some(f)
    }

    /// `cond(l op r)`.
    pub(super) fn cond(&mut self, d: &Fact, l: E, op: CmpOp, r: E) -> Option<Fact> {
        let mut f = d.clone();
        match op {
            CmpOp::Eq => {
                if d.is_hit(l) {
                    f.hits.push(r);
                }
                if d.is_hit(r) {
                    f.hits.push(l);
                }
                if miss(&mut self.arena, d, l) {
                    f.misses.push(r);
                }
                if miss(&mut self.arena, d, r) {
                    f.misses.push(l);
                }
            }
            CmpOp::Ne => {
                if d.is_hit(l) {
                    f.misses.push(r);
                }
                if d.is_hit(r) {
                    f.misses.push(l);
                }
            }
            _ => {}
        }
        let rel = Rel::from_cmp(op);
        match (*self.arena.kind(l), *self.arena.kind(r)) {
            (EKind::Int(a), EKind::Int(b)) if !rel.eval(a, b) => {
                return None;
            }
            (_, EKind::Int(k)) if !matches!(self.arena.kind(l), EKind::Num | EKind::Unknown) => {
                f.constraints.push(Constraint { e: l, rel, k })
            }
            (EKind::Int(k), _) if !matches!(self.arena.kind(r), EKind::Num | EKind::Unknown) => {
                f.constraints.push(Constraint {
                    e: r,
                    rel: rel.flip(),
                    k,
                })
            }
            _ if l != r
                && self.integer_comparison(l, r)
                && !crate::probe::state::mentions_unknown_value(&self.arena, l)
                && !crate::probe::state::mentions_unknown_value(&self.arena, r) =>
            {
                // Two integer values compared (`a->capacity > a->size`): a constraint on their
                // difference, oriented by the expressions' ids, so that the opposite test of
                // the same two values (`a->capacity <= a->size`) contradicts it.
                // Known offsets move to the constant: `cap > size + 1` is `cap - size > 1`
                // (`lb + lk rel rb + rk` is `lb - rb rel rk - lk`).
                if let ((Some(lb), lk), (Some(rb), rk)) =
                    (self.arena.offset_of(l), self.arena.offset_of(r))
                    && lb != rb
                    && let Some(k) = rk.checked_sub(lk)
                {
                    let (diff, swapped) = self.arena.ordered_difference(lb, rb);
                    let oriented = if swapped {
                        k.checked_neg().map(|k| (rel.flip(), k))
                    } else {
                        Some((rel, k))
                    };
                    if let Some((rel, k)) = oriented {
                        f.constraints.push(Constraint { e: diff, rel, k })
                    }
                }
            }
            _ => {
                if matches!(op, CmpOp::Eq | CmpOp::Ne)
                    && l != r
                    && f.relations.len() < MAX_RELS
                    && crate::probe::expr::is_pointerish(self.arena.ty(l))
                    && crate::probe::expr::is_pointerish(self.arena.ty(r))
                    && !self.has_unknown(l)
                    && !self.has_unknown(r)
                {
                    f.relations.push(PtrRel::new(l, r, op == CmpOp::Eq));
                }
            }
        }
        f.normalize();
        self.finish_fact(f)
    }

    /// Whether a hit of `d` reads the block just handed out (`target`, `*e0` right after
    /// `*e0 ← alloc`): a location of a block nobody has stored into yet holds no reference
    /// (zero bytes, or an indeterminate value no defined run uses as one), and a pointer read
    /// from it is no base of one. The hit `p->next->next` before the cursor step
    /// `p->next = malloc(…); p = p->next;` of a list built in a loop (the new node's own
    /// `next` field holding the cell) is refuted here.
    fn reads_new_block(&mut self, d: &Fact, target: E) -> bool {
        d.hits
            .clone()
            .into_iter()
            .any(|h| self.zero_reads(h, target, Zeroed::Block) != h)
    }

    /// Before `*e0 ← calloc(…)` (backwards): the new block's memory is all zero bytes, so
    /// every read of it in the constraints and relations (`m->opened` where `m` is `*e0`) is
    /// 0. `None` when that contradicts them (`m->opened != 0` right after the calloc).
    pub(super) fn zero_new_block(&mut self, d: &Fact, e0: E) -> Option<Fact> {
        let target = self.arena.deref(e0);
        self.zero_reads_in_fact(d, target, Zeroed::Block)
    }

    /// Before `memset(obj, 0, sizeof *obj)` (backwards, `zero-fill`): every location inside
    /// the object `obj` points to (`obj->f`, `obj->a.b`, not `obj[1]` or `obj->f->g`'s block)
    /// reads 0. A hit reading one is a contradiction (NULL is no reference, and a NULL base
    /// is no block); a miss reading one holds; constraints and relations are evaluated as
    /// for `calloc`. Locations that may alias the object under another name are left to the
    /// call's own transfer, which comes next backwards and forgets what it may write.
    pub(super) fn zero_object(&mut self, d: &Fact, obj: E) -> Option<Fact> {
        for &h in &d.hits {
            if self.zero_reads(h, obj, Zeroed::Object) != h {
                return None;
            }
        }
        let mut f = d.clone();
        let ms = std::mem::take(&mut f.misses);
        for m in ms {
            if self.zero_reads(m, obj, Zeroed::Object) == m {
                f.misses.push(m);
            }
        }
        self.zero_reads_in_fact(&f, obj, Zeroed::Object)
    }

    /// The constraints and relations of `d` with the zeroed memory's reads replaced by 0.
    fn zero_reads_in_fact(&mut self, d: &Fact, target: E, how: Zeroed) -> Option<Fact> {
        let cs: Vec<(Constraint, E)> = d
            .constraints
            .iter()
            .map(|c| (*c, self.zero_reads(c.e, target, how)))
            .collect();
        let rs: Vec<(PtrRel, E, E)> = d
            .relations
            .iter()
            .map(|r| {
                (
                    *r,
                    self.zero_reads(r.l, target, how),
                    self.zero_reads(r.r, target, how),
                )
            })
            .collect();
        if cs.iter().all(|(c, e)| c.e == *e) && rs.iter().all(|(r, l, rr)| (r.l, r.r) == (*l, *rr))
        {
            return Some(d.clone());
        }
        let mut f = d.clone();
        f.constraints.clear();
        f.relations.clear();
        // As in `assign`: a constraint whose expression became a number is evaluated, a
        // relation with a side that became one is a constraint (`add_rel`).
        for (c, e) in cs {
            match *self.arena.kind(e) {
                EKind::Int(v) if !c.rel.eval(v, c.k) => return None,
                EKind::Int(_) => {}
                _ => f.constraints.push(Constraint { e, ..c }),
            }
        }
        for (r, l, rr) in rs {
            if !self.add_rel(&mut f, l, rr, r.eq) {
                return None;
            }
        }
        self.finish_fact(f)
    }

    /// `e` with every read of the zeroed memory replaced by 0: the block `target` points to
    /// ([`Zeroed::Block`]), or only the object it points to ([`Zeroed::Object`]).
    fn zero_reads(&mut self, e: E, target: E, how: Zeroed) -> E {
        match *self.arena.kind(e) {
            EKind::Deref(x) => {
                let zeroed = match how {
                    Zeroed::Block => crate::probe::state::block_root(&self.arena, x) == target,
                    Zeroed::Object => crate::probe::state::within_object(&self.arena, x, target),
                };
                if zeroed {
                    let ty = self.arena.ty(e).clone();
                    return self.arena.mk(EKind::Int(0), &ty);
                }
                let x2 = self.zero_reads(x, target, how);
                if x2 == x {
                    e
                } else {
                    let ty = self.arena.ty(e).clone();
                    self.arena.mk(EKind::Deref(x2), &ty)
                }
            }
            EKind::Field(b, n) => {
                let b2 = self.zero_reads(b, target, how);
                if b2 == b {
                    e
                } else {
                    let ty = self.arena.ty(e).clone();
                    self.arena.rebuilt_field(e, b2, n, &ty)
                }
            }
            EKind::Bin(op, l, r) => {
                let (l2, r2) = (
                    self.zero_reads(l, target, how),
                    self.zero_reads(r, target, how),
                );
                if (l2, r2) == (l, r) {
                    e
                } else {
                    let ty = self.arena.ty(e).clone();
                    self.arena.mk(EKind::Bin(op, l2, r2), &ty)
                }
            }
            _ => e,
        }
    }

    /// Whether `e` is of an integer type (typedefs resolved: `size_t` is one).
    fn is_integer(&self, e: E) -> bool {
        matches!(self.arena.env().resolve(self.arena.ty(e)), Type::Int)
    }

    /// Whether `l` and `r` compare as integers: both are, or one is and the other's type is
    /// unknown (an identifier declared nowhere the front end can see, such as a constant
    /// from a generated header: compared with an integer, C makes it arithmetic).
    fn integer_comparison(&self, l: E, r: E) -> bool {
        let untyped = |e: E| matches!(self.arena.env().resolve(self.arena.ty(e)), Type::Unknown);
        (self.is_integer(l) && (self.is_integer(r) || untyped(r)))
            || (untyped(l) && self.is_integer(r))
    }

    fn mentions_locals(&self, e: E, f: FuncId, locals: &FxHashSet<LocalId>) -> bool {
        self.arena.mentions(
            e,
            &|s| matches!(s, Sym::Local(g, l) if g == f && locals.contains(&l)),
        )
    }

    /// `scope(x)` for each local: a fresh variable cannot point to the cell (⊥ if it hits);
    /// otherwise facts about it are forgotten.
    pub(super) fn scope_begin(&mut self, d: &Fact, f: FuncId, locals: &[LocalId]) -> Option<Fact> {
        let set: FxHashSet<LocalId> = locals.iter().copied().collect();
        if d.hits.iter().any(|e| self.mentions_locals(*e, f, &set)) {
            return None;
        }
        let mut out = d.clone();
        out.misses.retain(|e| !self.mentions_locals(*e, f, &set));
        out.constraints
            .retain(|c| !self.mentions_locals(c.e, f, &set));
        out.relations
            .retain(|r| !self.mentions_locals(r.l, f, &set) && !self.mentions_locals(r.r, f, &set));
        // A tag location read through a local whose scope begins names nothing before it.
        for &(r, x) in &d.tags {
            if self.mentions_locals(x, f, &set) {
                out.untag(r);
            }
        }
        let mut drop_regions = Vec::new();
        for r in out.regions.iter() {
            if let Region::Var(i) = r
                && let VarRoot::Local(g, l) = &self.arena.names.var_path(i).root
                && *g == f
                && set.contains(l)
            {
                drop_regions.push(r);
            }
        }
        // Variables' regions carry no tags (see `Fact::tags`): removing them leaves the tags as
        // they are.
        for r in drop_regions {
            out.regions.remove(r);
        }
        Some(out)
    }

    /// A local's value dies (scope end): `*a_x ← 0` for each pointer it holds.
    pub(super) fn nullify_local(&mut self, d: &Fact, f: FuncId, l: LocalId) -> Option<Fact> {
        let b = self.body(f);
        let local = b.local(l);
        if matches!(local.kind, LocalKind::Return) {
            return Some(d.clone());
        }
        let ty = self.arena.env().resolve(&local.ty);
        let addr = self.local_addr(f, l);
        self.nullify_typed(d, addr, &ty, 0)
    }

    fn nullify_typed(&mut self, d: &Fact, addr: E, ty: &Type, depth: u32) -> Option<Fact> {
        match ty {
            Type::Pointer(_) | Type::Unknown | Type::Named(_) => {
                let z = self.zero();
                self.assign(d, addr, z)
            }
            t if t.is_aggregate() && depth < 3 => {
                let Some(def) = self.arena.env().struct_def(t).cloned() else {
                    return Some(d.clone());
                };
                let mut cur = d.clone();
                for fd in &def.fields {
                    let fty = self.arena.env().resolve(&fd.ty);
                    if fty.is_pointer() || fty.is_aggregate() {
                        let fa = self.field_addr(addr, &fd.name);
                        cur = self.nullify_typed(&cur, fa, &fty, depth + 1)?;
                    }
                }
                Some(cur)
            }
            Type::Array(elem, _) if elem.is_pointer() => {
                // The elements die with the array: they may have held references.
                let idx = self.arena.mk(EKind::Num, &Type::Int);
                let ea = self.arena.mk(
                    EKind::Bin(crate::ir::BinOp::Add, addr, idx),
                    &Type::pointer_to((**elem).clone()),
                );
                let w = self.arena.pt(ea);
                let mut out = d.clone();
                self.grow_s(&mut out, &w, None);
                Some(out)
            }
            _ => Some(d.clone()),
        }
    }

    /// `havoc` for a callee whose body is not followed (`who`, called at `at`): the regions
    /// it brings into S are remembered (`Fact::unknown_top`), so that a path which needs the
    /// callee to have dropped a stored reference is not taken for a leak.
    pub(super) fn havoc_unknown(&mut self, d: &Fact, w: &RegionSet, who: &str, at: Loc) -> Fact {
        let mut out = self.havoc(d, w);
        if d.regions.all_memory || w.all_memory {
            return out;
        }
        for r in w.iter() {
            if !d.regions.contains(r) && out.regions.contains(r) && !out.is_tagged(r) {
                out.unknown_top.insert(r);
                self.verdict.note_unknown_writer(r, who, at.clone());
            }
        }
        out
    }

    /// Memory in `w` may be overwritten with anything: facts reading it are forgotten and its
    /// regions may hold pointers to the cell.
    pub(super) fn havoc(&mut self, d: &Fact, w: &RegionSet) -> Fact {
        let mut out = d.clone();
        out.tags = self.tags_past_write(&d.tags, w, None);
        self.grow_s(&mut out, w, None);
        let keep = |eng: &mut Self, e: E| eng.disjoint(e, w);
        let h = out.hits.clone();
        out.hits = h.into_iter().filter(|e| keep(self, *e)).collect();
        let m = out.misses.clone();
        out.misses = m.into_iter().filter(|e| keep(self, *e)).collect();
        let c = out.constraints.clone();
        out.constraints = c.into_iter().filter(|c| keep(self, c.e)).collect();
        let p = out.relations.clone();
        out.relations = p
            .into_iter()
            .filter(|r| keep(self, r.l) && keep(self, r.r))
            .collect();
        out
    }
}

/// Which memory a zeroing statement clears (see `zero_reads`).
#[derive(Clone, Copy)]
enum Zeroed {
    /// The whole block (`calloc`'s), at any offset.
    Block,
    /// One object and its members (`memset(p, 0, sizeof *p)`).
    Object,
}
