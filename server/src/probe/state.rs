//! The error-cell abstraction (S, H, M) of §4.2 and the helper functions of Figure 2.

use super::expr::{Arena, E, EKind, Sym};
use crate::regions::{Region, RegionSet};
use smallvec::SmallVec;

/// What we know about the error cell at a program point:
/// - `regions` (the paper's S): regions that may hold pointers to it;
/// - `hits` (H): expressions that point to it (the hit set);
/// - `misses` (M): expressions that do not (the miss set).
///
/// - `constraints`: comparisons with constants known to hold (`prev == 0`, `n > 4096`): an
///   extension that makes the analysis path-sensitive on nullness and flags, so that
///   `if (c) p = malloc(); … if (c) free(p);` and "`prev == NULL` means the loop never ran"
///   are understood. They are transformed like miss expressions and refuted when they
///   evaluate to false.
///
/// - `tags`: the expression tags of §4.8, as `(region, location)` pairs. A region of S with
///   pairs holds references to the cell at most at those locations; a region of S without
///   pairs is ⊤ (it may hold any number of references anywhere). The paper tags a region with
///   one expression; a short list (up to [`MAX_TAGS`]) keeps `prev->next = cur->next` precise,
///   where both `prev->next` and `cur->next` may hold the reference before the write. A tag
///   that misses is dropped, and a region whose tags all miss leaves S (the strong update).
///   Variables' regions are never tagged: each is one location, and `cleanup` removes it
///   from S when that location misses.
///
/// - `relations`: `l == r` / `l != r` between two pointer expressions, from comparisons of
///   pointers (`prev != cur`) and from the case splits of an assignment (is the written field
///   the one that holds the reference, or another block's?). They transform like constraints;
///   an equality rewrites expressions when checking for contradictions.
///
/// `tainted` records that the fact passed a statement the front end could not model; a
/// validating allocation reached by a tainted fact is reported `unproved`, not `leak`.
/// `assumed` records that the fact took the "same block" side of a case split: the pointers
/// it assumed equal may only be equal in runs the analysis cannot tell apart from others
/// (a cyclic list that a loop would walk forever), so an allocation it reaches is not
/// evidence of a leak either.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub regions: RegionSet,
    pub hits: SmallVec<[E; 4]>,
    pub misses: SmallVec<[E; 4]>,
    pub constraints: SmallVec<[Constraint; 2]>,
    pub tags: SmallVec<[(Region, E); 2]>,
    pub relations: SmallVec<[PtrRel; 1]>,
    pub tainted: bool,
    pub assumed: bool,
    /// Regions that entered S only because a callee whose body was not followed may have
    /// written them (a body-less call, a MOD summary): they may hold references the fact
    /// knows nothing of, only because that callee might have dropped them.
    pub unknown_top: RegionSet,
    /// Set when a hit was stored (backward: its store was undone) into a region of
    /// `unknown_top`: the path loses the block only if that callee overwrote the stored
    /// reference, so an allocation it reaches is no evidence of a leak (the index of the
    /// callee in the engine's list of unknown writers).
    pub unknown_drop: Option<u32>,
}

/// `l == r` (`eq`) or `l != r` between two expressions that are not constants (`l < r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtrRel {
    pub l: E,
    pub r: E,
    pub eq: bool,
}

impl PtrRel {
    pub fn new(a: E, b: E, eq: bool) -> PtrRel {
        let (l, r) = if a <= b { (a, b) } else { (b, a) };
        PtrRel { l, r, eq }
    }
}

/// The most relations a fact carries; a case split is not made past it.
pub const MAX_RELS: usize = 2;

/// The most locations a region's tag lists before it becomes ⊤.
pub const MAX_TAGS: usize = 4;

/// Cloned at every transfer: the small vectors are copied as blocks (their items are `Copy`).
impl Clone for Fact {
    fn clone(&self) -> Self {
        Fact {
            regions: self.regions.clone(),
            hits: SmallVec::from_slice(&self.hits),
            misses: SmallVec::from_slice(&self.misses),
            constraints: SmallVec::from_slice(&self.constraints),
            tags: SmallVec::from_slice(&self.tags),
            relations: SmallVec::from_slice(&self.relations),
            tainted: self.tainted,
            assumed: self.assumed,
            unknown_top: self.unknown_top.clone(),
            unknown_drop: self.unknown_drop,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Rel {
    pub fn from_cmp(op: crate::ir::CmpOp) -> Rel {
        use crate::ir::CmpOp::*;
        match op {
            Eq => Rel::Eq,
            Ne => Rel::Ne,
            Lt => Rel::Lt,
            Le => Rel::Le,
            Gt => Rel::Gt,
            Ge => Rel::Ge,
        }
    }
    /// `k rel e` as `e rel' k`.
    pub fn flip(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Le => Rel::Ge,
            Rel::Gt => Rel::Lt,
            Rel::Ge => Rel::Le,
            r => r,
        }
    }
    pub fn eval(self, v: i64, k: i64) -> bool {
        match self {
            Rel::Eq => v == k,
            Rel::Ne => v != k,
            Rel::Lt => v < k,
            Rel::Le => v <= k,
            Rel::Gt => v > k,
            Rel::Ge => v >= k,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FactIndex {
    pub regions: RegionSet,
    pub vars: SmallVec<[Constraint; 2]>,
    pub rels: SmallVec<[PtrRel; 1]>,
    /// A feasibility witness (see the engine), never merged with a fact about the cell.
    pub witness: bool,
}

/// `e rel k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constraint {
    pub e: E,
    pub rel: Rel,
    pub k: i64,
}

impl Fact {
    pub fn new(
        regions: RegionSet,
        hits: impl IntoIterator<Item = E>,
        misses: impl IntoIterator<Item = E>,
    ) -> Fact {
        let mut f = Fact {
            regions,
            hits: hits.into_iter().collect(),
            misses: misses.into_iter().collect(),
            constraints: SmallVec::new(),
            tags: SmallVec::new(),
            relations: SmallVec::new(),
            tainted: false,
            assumed: false,
            unknown_top: RegionSet::empty(),
            unknown_drop: None,
        };
        f.normalize();
        f
    }

    /// A probe's starting fact: the cell is referenced by the location `loc` only, so every
    /// region of S is tagged with it.
    pub fn probe(regions: RegionSet, loc: E, misses: impl IntoIterator<Item = E>) -> Fact {
        let tags = regions
            .iter()
            .filter(|r| !r.is_var())
            .map(|r| (r, loc))
            .collect();
        let mut f = Fact::new(regions, [loc], misses);
        f.tags = tags;
        f.normalize();
        f
    }

    pub fn normalize(&mut self) {
        self.hits.sort_unstable();
        self.hits.dedup();
        self.misses.sort_unstable();
        self.misses.dedup();
        self.constraints.sort_unstable();
        self.constraints.dedup();
        self.relations.sort_unstable();
        self.relations.dedup();
        self.normalize_tags();
        if !self.unknown_top.is_empty() {
            let s = &self.regions;
            self.unknown_top.retain(|r| s.contains(r));
        }
    }

    /// Tags sorted, only for regions of S, at most [`MAX_TAGS`] per region (more make the
    /// region ⊤); none when S is "all memory".
    pub fn normalize_tags(&mut self) {
        if self.tags.is_empty() {
            return;
        }
        if self.regions.all_memory {
            self.tags.clear();
            return;
        }
        self.tags.sort_unstable();
        self.tags.dedup();
        let s = &self.regions;
        self.tags.retain(|(r, _)| s.contains(*r));
        let mut i = 0;
        while i < self.tags.len() {
            let r = self.tags[i].0;
            let mut j = i;
            while j < self.tags.len() && self.tags[j].0 == r {
                j += 1;
            }
            if j - i > MAX_TAGS {
                self.tags.drain(i..j);
            } else {
                i = j;
            }
        }
    }

    /// The tag locations of region `r`; empty when `r` is ⊤ (or not in S).
    pub fn tags_of(&self, r: Region) -> &[(Region, E)] {
        let lo = self.tags.partition_point(|(x, _)| *x < r);
        let hi = self.tags.partition_point(|(x, _)| *x <= r);
        &self.tags[lo..hi]
    }

    pub fn is_tagged(&self, r: Region) -> bool {
        !self.tags_of(r).is_empty()
    }

    /// Make region `r` ⊤: forget its tags.
    pub fn untag(&mut self, r: Region) {
        self.tags.retain(|(x, _)| *x != r);
    }

    /// Add region `r` to S as written at location `loc` (backwards, the old value of `loc` may
    /// reference the cell): a region new to S holds at most that reference; a tagged region
    /// gains `loc` as one more place; a ⊤ region stays ⊤. With `loc` unknown (`None`) the
    /// region becomes ⊤.
    pub fn add_written(&mut self, r: Region, loc: Option<E>) {
        // A variable's region is one location: `cleanup`'s strong update covers it untagged.
        let loc = if r.is_var() { None } else { loc };
        if self.regions.contains(r) {
            if self.is_tagged(r) {
                match loc {
                    Some(l) => self.tags.push((r, l)),
                    None => self.untag(r),
                }
            }
        } else {
            self.regions.insert(r);
            if let Some(l) = loc {
                self.tags.push((r, l));
            }
        }
    }

    pub fn is_hit(&self, e: E) -> bool {
        self.hits.binary_search(&e).is_ok()
    }
    pub fn in_miss_set(&self, e: E) -> bool {
        self.misses.binary_search(&e).is_ok()
    }

    /// The join of §4.2: S1 ∪ S2, H1 ∩ H2, M1 ∩ M2. Returns whether `self` changed. A
    /// region in both S keeps the union of its tags (⊤ if either is ⊤); a region in one S
    /// only keeps that side's tags (the other side holds no reference there).
    pub fn join(&mut self, other: &Fact) -> bool {
        if self.tags.is_empty() && other.tags.is_empty() {
            // No tags on either side: nothing to merge (the common case).
            return self.join_untagged(other);
        }
        let t0 = self.tags.clone();
        let mut t: SmallVec<[(Region, E); 2]> = SmallVec::new();
        if !self.regions.all_memory && !other.regions.all_memory {
            for r in self.regions.iter() {
                let mine = self.tags_of(r);
                if !other.regions.contains(r) {
                    t.extend_from_slice(mine);
                } else if !mine.is_empty() && other.is_tagged(r) {
                    t.extend_from_slice(mine);
                    t.extend_from_slice(other.tags_of(r));
                }
            }
            for r in other.regions.iter() {
                if !self.regions.contains(r) {
                    t.extend_from_slice(other.tags_of(r));
                }
            }
        }
        self.tags = t;
        let mut changed = self.join_untagged(other);
        self.normalize_tags();
        changed |= self.tags != t0;
        changed
    }

    /// The join of S, H, M, the constraints and the taint (tags aside).
    fn join_untagged(&mut self, other: &Fact) -> bool {
        let mut changed = self.regions.union_with(&other.regions);
        let h0 = self.hits.len();
        self.hits.retain(|e| other.hits.binary_search(e).is_ok());
        let m0 = self.misses.len();
        self.misses
            .retain(|e| other.misses.binary_search(e).is_ok());
        let c0 = self.constraints.len();
        self.constraints
            .retain(|c| other.constraints.binary_search(c).is_ok());
        let p0 = self.relations.len();
        self.relations
            .retain(|r| other.relations.binary_search(r).is_ok());
        changed |= self.hits.len() != h0
            || self.misses.len() != m0
            || self.constraints.len() != c0
            || self.relations.len() != p0;
        if other.tainted && !self.tainted {
            self.tainted = true;
            changed = true;
        }
        if other.assumed && !self.assumed {
            self.assumed = true;
            changed = true;
        }
        changed |= self.unknown_top.union_with(&other.unknown_top);
        if self.unknown_drop.is_none() && other.unknown_drop.is_some() {
            self.unknown_drop = other.unknown_drop;
            changed = true;
        }
        changed
    }

    /// Whether joining `other` into `self` forgets no test of a preprocessor condition that
    /// only one of them took: both took the same, or they differ in nothing else (then the
    /// join is their disjunction exactly).
    pub fn joins_losslessly(&self, other: &Fact, a: &Arena) -> bool {
        if self.constraints == other.constraints {
            return true;
        }
        // The constraints of `f` on condition variables (`cond`) or on anything else.
        let part = |f: &Fact, cond: bool| {
            f.constraints
                .iter()
                .filter(|c| condition_read(a, c.e) == cond)
                .copied()
                .collect::<SmallVec<[Constraint; 2]>>()
        };
        if part(self, true) == part(other, true) {
            return true;
        }
        self.regions == other.regions
            && self.hits == other.hits
            && self.misses == other.misses
            && self.tags == other.tags
            && self.relations == other.relations
            && self.tainted == other.tainted
            && self.assumed == other.assumed
            && self.unknown_top == other.unknown_top
            && self.unknown_drop == other.unknown_drop
            && part(self, false) == part(other, false)
    }

    /// The index of the separated abstraction (§4.8): the regions holding hit expressions,
    /// refined by the constraints on plain variables, so that paths that took different
    /// branches on a variable (`prev == NULL` or not) are not merged, and on members of a
    /// variable's block (`s->isOwner == 0`), which the engine uses while a point has few
    /// facts (`MEMBER_SPLIT_SLOTS`; `FactIndex::plain` leaves them out).
    pub fn index(&self, a: &mut Arena) -> FactIndex {
        let mut regions = RegionSet::empty();
        for &e in &self.hits {
            if let EKind::Deref(x) = *a.kind(e) {
                let p = a.pt(x);
                regions.union_with(&p);
            }
        }
        let vars = self
            .constraints
            .iter()
            .filter(|c| (var_read(a, c.e) && !condition_read(a, c.e)) || member_read(a, c.e))
            .copied()
            .collect();
        FactIndex {
            regions,
            vars,
            rels: SmallVec::new(),
            witness: false,
        }
    }
}

impl FactIndex {
    /// The index without its constraints on members: only those on plain variables.
    pub fn plain(&self, a: &Arena) -> FactIndex {
        FactIndex {
            vars: self
                .vars
                .iter()
                .filter(|c| var_read(a, c.e))
                .copied()
                .collect(),
            ..self.clone()
        }
    }
}

/// A read of a variable (`n`).
fn var_read(a: &Arena, e: E) -> bool {
    matches!(a.kind(e), EKind::Deref(x) if matches!(a.kind(*x), EKind::Addr(_)))
}

/// A read of a preprocessor condition's variable (`defined(X)`, see `ir::lower::unit_conds`):
/// left out of the index. Facts that differ only in such tests (the arms of an `#if` did not
/// change the fact) join, losing nothing (`X` defined or not is every case); facts that
/// differ in them and in anything else stay apart (see `Fact::joins_losslessly`).
pub fn condition_read(a: &Arena, e: E) -> bool {
    matches!(a.kind(e), EKind::Deref(x)
        if matches!(a.kind(*x), EKind::Addr(super::expr::Sym::Global(g))
            if crate::ir::is_condition_variable(a.string_of(*g))))
}

/// A read of a member of the block a variable points to (`s->flag`, `s->hdr.kind`): with
/// `var_read`, the constraints that separate facts (`Fact::index`). Two paths that test one
/// member of the same object differently (`if (s->owned) free(s)`) stay apart instead of
/// being joined into a fact that has forgotten both tests.
fn member_read(a: &Arena, e: E) -> bool {
    let EKind::Deref(mut x) = *a.kind(e) else {
        return false;
    };
    let mut fields = 0;
    while let EKind::Field(b, _) = *a.kind(x) {
        x = b;
        fields += 1;
    }
    fields > 0 && var_read(a, x)
}

/// `ImplicitMiss(e, d)` of Figure 2, plus the type-safety reading of the paper's language: a
/// value of integer type never references the cell.
pub fn implicit_miss(a: &mut Arena, e: E, s: &RegionSet) -> bool {
    match *a.kind(e) {
        EKind::Int(_) | EKind::Num | EKind::Addr(_) => true,
        EKind::Deref(x) => {
            if invalid(a, x) {
                return true;
            }
            if matches!(
                a.kind(x),
                EKind::Addr(Sym::Function(_) | Sym::StringLit(..))
            ) {
                return true;
            }
            let p = a.pt(x);
            !p.intersects(s) || non_pointer_value(a, e)
        }
        EKind::Field(b, _) => invalid(a, b),
        EKind::Bin(_, l, r) => non_pointer_value(a, e) || (invalid(a, l) && invalid(a, r)),
        EKind::Unknown => false,
    }
}

/// `E[*n]` or `E[n.f]`: evaluating it would fault, so it references nothing.
fn invalid(a: &Arena, e: E) -> bool {
    match a.kind(e) {
        EKind::Int(_) | EKind::Num => true,
        EKind::Deref(x) | EKind::Field(x, _) => invalid(a, *x),
        _ => false,
    }
}

fn non_pointer_value(a: &Arena, e: E) -> bool {
    matches!(a.ty(e), crate::ir::Type::Int | crate::ir::Type::Float)
}

/// Whether the address `e` lies inside the object `obj` points to: `e` is `obj` or a member
/// of a member of it (`&p->a.b` is inside `p` and inside `&p->a`); not through pointer
/// arithmetic (`p + 1` is another object than `*p`).
pub fn within_object(a: &Arena, mut e: E, obj: E) -> bool {
    for _ in 0..64 {
        if e == obj {
            return true;
        }
        match *a.kind(e) {
            EKind::Field(base, _) => e = base,
            _ => return false,
        }
    }
    false
}

/// The pointer an address computation starts from: `p + k`, `p - k`, `&p[k]` and `&p->f`
/// point into the same block as `p` (C has pointer arithmetic and field addresses; the
/// paper's language has neither as a value). A block referenced by an interior pointer is
/// still referenced: a constructor that returns `&o->base` hands its block to the caller,
/// which gets it back with `container_of` (LeakSanitizer counts interior pointers too).
pub fn block_root(a: &Arena, mut e: E) -> E {
    for _ in 0..64 {
        match *a.kind(e) {
            // `&p->f` is the address of a field of the block `p` points to; `&s.f` of a
            // variable `s` is `Field(Addr(s), f)`, whose root is an address, never a heap block.
            EKind::Field(base, _) => e = base,
            EKind::Bin(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, l, r) => {
                if a.ty(l).is_pointer_like() {
                    e = l;
                } else if a.ty(r).is_pointer_like() {
                    e = r;
                } else {
                    return e;
                }
            }
            _ => return e,
        }
    }
    e
}

/// `Miss(e, d)`: explicitly or implicitly missing (an interior pointer misses when the
/// pointer it is computed from does).
pub fn miss(a: &mut Arena, f: &Fact, e: E) -> bool {
    if f.in_miss_set(e) || implicit_miss(a, e, &f.regions) {
        return true;
    }
    let root = block_root(a, e);
    root != e && (f.in_miss_set(root) || implicit_miss(a, root, &f.regions))
}

/// `Infeasible(d)`: some expression both hits and misses, or the constraints cannot all hold —
/// a contradiction.
pub fn infeasible(a: &mut Arena, f: &Fact) -> bool {
    let h = f.hits.clone();
    if h.iter().any(|e| miss(a, f, *e)) || constraints_unsat(a, f) || rels_unsat(a, f) {
        return true;
    }
    // An interior pointer of a hit pointer hits too (`(char *) p + sizeof(hdr)` as much as
    // `p + 4`). Not a library result that may be NULL (`strchr`: `s + <library offset>`), nor
    // one computed from code the analysis did not understand.
    f.misses.iter().any(|m| {
        let root = block_root(a, *m);
        root != *m && f.is_hit(root) && !maybe_null_offset(a, *m)
    })
}

/// The type of the offset in a library result that points into an argument's block or is
/// NULL (`strchr(s, c)` is `s + <number>` of this type): another node than the `<number>`s
/// of the program's own arithmetic (`p + sizeof(hdr)`), which stay inside the block.
pub const LIBRARY_OFFSET: &str = "<library offset>";

/// Whether `e` contains a library result's offset or `<unknown>`: an interior pointer that
/// may also be NULL or anything.
fn maybe_null_offset(a: &Arena, e: E) -> bool {
    match *a.kind(e) {
        EKind::Unknown => true,
        EKind::Num => matches!(a.ty(e), crate::ir::Type::Named(n) if n == LIBRARY_OFFSET),
        EKind::Deref(x) | EKind::Field(x, _) => maybe_null_offset(a, x),
        EKind::Bin(_, l, r) => maybe_null_offset(a, l) || maybe_null_offset(a, r),
        _ => false,
    }
}

/// Whether the relations contradict the fact: `e != e`; equal values of which one hits and
/// the other misses; different values that both hit (a hit is the cell's address). An
/// equality `l == r` also rewrites the larger side into the smaller in the hit and miss
/// expressions (both denote the same value in the same store), and a hit that then misses, or
/// a disequality whose sides become one expression, is a contradiction.
fn rels_unsat(a: &mut Arena, f: &Fact) -> bool {
    if f.relations.is_empty() {
        return false;
    }
    // A side that mentions `<number>` or `<unknown>` is no particular value (two such
    // occurrences are one node but not one value): such a relation decides nothing.
    let decided =
        |a: &Arena, r: &PtrRel| !mentions_unknown_value(a, r.l) && !mentions_unknown_value(a, r.r);
    let rels: SmallVec<[PtrRel; 2]> = f
        .relations
        .iter()
        .filter(|r| decided(a, r))
        .copied()
        .collect();
    for r in &rels {
        if r.l == r.r {
            if !r.eq {
                return true;
            }
            continue;
        }
        let (lh, rh) = (f.is_hit(r.l), f.is_hit(r.r));
        if r.eq {
            if (lh && miss(a, f, r.r)) || (rh && miss(a, f, r.l)) {
                return true;
            }
        } else if lh && rh {
            return true;
        }
    }
    let eqs: SmallVec<[(E, E); 2]> = rels
        .iter()
        .filter(|r| r.eq && r.l != r.r)
        .filter_map(|r| {
            let (sl, sr) = (expr_size(a, r.l), expr_size(a, r.r));
            // Each rewrite replaces a subexpression by a smaller one, so it ends.
            if sl > sr {
                Some((r.l, r.r))
            } else if sr > sl {
                Some((r.r, r.l))
            } else {
                None
            }
        })
        .collect();
    if eqs.is_empty() {
        return false;
    }
    let canon = |a: &mut Arena, e: E| -> E {
        let mut cur = e;
        for _ in 0..8 {
            let mut changed = false;
            for &(from, to) in &eqs {
                let (next, hit) = replace_same(a, cur, from, to);
                if hit {
                    cur = next;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        cur
    };
    let ms: SmallVec<[E; 4]> = f.misses.iter().map(|e| canon(a, *e)).collect();
    for &h in &f.hits {
        let c = canon(a, h);
        if ms.iter().any(|m| same_expr(a, *m, c)) || (c != h && miss(a, f, c)) {
            return true;
        }
    }
    let ne: SmallVec<[PtrRel; 1]> = rels.iter().filter(|r| !r.eq).copied().collect();
    ne.into_iter().any(|r| {
        let (l, r) = (canon(a, r.l), canon(a, r.r));
        same_expr(a, l, r)
    })
}

/// Whether `e` contains `<number>` or `<unknown>`: a value the analysis does not name, of
/// which every occurrence may differ.
pub fn mentions_unknown_value(a: &Arena, e: E) -> bool {
    match *a.kind(e) {
        EKind::Num | EKind::Unknown => true,
        EKind::Deref(x) | EKind::Field(x, _) => mentions_unknown_value(a, x),
        EKind::Bin(_, l, r) => mentions_unknown_value(a, l) || mentions_unknown_value(a, r),
        _ => false,
    }
}

/// `e` with every subexpression that is [`same_expr`] as `from` replaced by `to`, and whether
/// there was one.
fn replace_same(a: &mut Arena, e: E, from: E, to: E) -> (E, bool) {
    if same_expr(a, e, from) {
        return (to, true);
    }
    let ty = a.ty(e).clone();
    match *a.kind(e) {
        EKind::Deref(x) => {
            let (x2, hit) = replace_same(a, x, from, to);
            if !hit {
                return (e, false);
            }
            let t = a.ty(x2).pointee().cloned().unwrap_or(ty);
            (a.mk(EKind::Deref(x2), &t), true)
        }
        EKind::Field(b, f) => {
            let (b2, hit) = replace_same(a, b, from, to);
            if !hit {
                return (e, false);
            }
            (a.rebuilt_field(e, b2, f, &ty), true)
        }
        EKind::Bin(op, l, r) => {
            let (l2, hl) = replace_same(a, l, from, to);
            let (r2, hr) = replace_same(a, r, from, to);
            if !hl && !hr {
                return (e, false);
            }
            (a.mk(EKind::Bin(op, l2, r2), &ty), true)
        }
        _ => (e, false),
    }
}

/// Whether two expressions are the same up to their static types (a substitution can name a
/// pointee `struct list` where the program says `List`).
fn same_expr(a: &Arena, x: E, y: E) -> bool {
    if x == y {
        return true;
    }
    match (*a.kind(x), *a.kind(y)) {
        (EKind::Deref(p), EKind::Deref(q)) => same_expr(a, p, q),
        (EKind::Field(p, f), EKind::Field(q, g)) => f == g && same_expr(a, p, q),
        (EKind::Bin(o1, l1, r1), EKind::Bin(o2, l2, r2)) => {
            o1 == o2 && same_expr(a, l1, l2) && same_expr(a, r1, r2)
        }
        (EKind::Addr(s), EKind::Addr(t)) => s == t,
        (EKind::Int(u), EKind::Int(v)) => u == v,
        _ => false,
    }
}

/// The number of nodes of an expression (orients equalities for rewriting).
fn expr_size(a: &Arena, e: E) -> u32 {
    match *a.kind(e) {
        EKind::Deref(x) | EKind::Field(x, _) => 1 + expr_size(a, x),
        EKind::Bin(_, l, r) => 1 + expr_size(a, l) + expr_size(a, r),
        _ => 1,
    }
}

/// What a constraint `e rel k` says, with the known numbers of `e` moved to `k`.
enum Shifted {
    /// `e` is this number: the constraint is true or false.
    Const(i64),
    /// `base rel k'`, with `k'` the new constant (`None`: no shift).
    On(E, Option<(Rel, i64)>),
}

/// An integer expression as a base plus a known number: `i + 1 >= 128` is `i >= 127`,
/// `n - 2 + 1 == 0` is `n == 1`, and a difference of two such terms is the difference of
/// their bases (`cap - (size + 1) < 0` is `cap - size < 1`, oriented as `cond` orients it,
/// the smaller id first; `size - (size + 1)` is `-1`). Pointers are left whole (their steps
/// count elements, not units), and so are offsets past ±2³² (a loop counter's step, not a
/// hash's mixing).
fn shift(a: &mut Arena, c: &Constraint) -> Shifted {
    const LIMIT: i64 = 1 << 32;
    let small = |v: i64| (-LIMIT..=LIMIT).contains(&v);
    let e = c.e;
    if a.ty(e).is_pointer_like() || matches!(a.kind(e), EKind::Int(_)) {
        return Shifted::On(e, None);
    }
    let (base, k) = a.offset_of(e);
    let Some(base) = base else {
        return if small(k) {
            Shifted::Const(k)
        } else {
            Shifted::On(e, None)
        };
    };
    if !small(k) || a.ty(base).is_pointer_like() {
        return Shifted::On(e, None);
    }
    let (mut base, mut off, mut rel) = (base, k, c.rel);
    if let EKind::Bin(crate::ir::BinOp::Sub, x, y) = *a.kind(base)
        && !a.ty(x).is_pointer_like()
        && !a.ty(y).is_pointer_like()
    {
        let ((xb, xk), (yb, yk)) = (a.offset_of(x), a.offset_of(y));
        let d = xk.checked_sub(yk).and_then(|d| d.checked_add(off));
        match (xb, yb, d) {
            (Some(xb), Some(yb), Some(d)) if small(d) && small(xk) && small(yk) => {
                if xb == yb {
                    // `Arena::mk` folds a difference of two offsets from one value into its
                    // number when the node is made; one that is still here is over
                    // `<number>`/`<unknown>`, whose occurrences may be different values.
                    return Shifted::On(e, None);
                }
                if xk == 0 && yk == 0 && xb.0 < yb.0 {
                    // Already `xb - yb`, in `cond`'s order.
                    off = d;
                } else {
                    let (diff, swapped) = a.ordered_difference(xb, yb);
                    base = diff;
                    off = d;
                    if swapped {
                        // `x - y rel k` is `y - x rel' -k`.
                        rel = rel.flip();
                        let Some(k) = c.k.checked_neg().and_then(|k| k.checked_add(off)) else {
                            return Shifted::On(e, None);
                        };
                        return Shifted::On(base, Some((rel, k)));
                    }
                }
            }
            // `k - y rel c` is `y rel' k - c`: a constant minus a value (`0 - count`, after
            // `i = 0` in `i - count`).
            (None, Some(yb), Some(d)) if small(d) && small(yk) => {
                let Some(k) = d.checked_sub(c.k) else {
                    return Shifted::On(e, None);
                };
                return Shifted::On(yb, Some((rel.flip(), k)));
            }
            _ => {}
        }
    }
    if base == e {
        return Shifted::On(e, None);
    }
    match c.k.checked_sub(off) {
        Some(k) => Shifted::On(base, Some((rel, k))),
        None => Shifted::On(e, None),
    }
}

/// Whether the constraints on some expression cannot hold together (integer intervals,
/// equalities and disequalities; a hit expression is a non-null pointer). Known numbers
/// move to the constant first (`shift`): past `i++` a loop's exit test and the test before
/// it are on one variable again, and `i < 128`, `i + 1 >= 128`, `i + 1 != 128` contradict
/// each other.
fn constraints_unsat(a: &mut Arena, f: &Fact) -> bool {
    let mut shifted: SmallVec<[Constraint; 8]> = SmallVec::new();
    let mut any = false;
    for c in &f.constraints {
        match shift(a, c) {
            Shifted::Const(v) => {
                if !c.rel.eval(v, c.k) {
                    return true;
                }
                any = true;
            }
            Shifted::On(_, None) => shifted.push(*c),
            Shifted::On(e, Some((rel, k))) => {
                shifted.push(Constraint { e, rel, k });
                any = true;
            }
        }
    }
    let cs: &[Constraint] = if any {
        shifted.sort_unstable();
        shifted.dedup();
        &shifted
    } else {
        &f.constraints
    };
    let mut i = 0;
    while i < cs.len() {
        let e = cs[i].e;
        if mentions_unknown_value(a, e) {
            // `<number>` and `<unknown>` stand for any value, each occurrence its own (two
            // calls' results are one node of the arena): constraints on them decide nothing.
            while i < cs.len() && cs[i].e == e {
                i += 1;
            }
            continue;
        }
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        let mut eq: Option<i64> = None;
        let mut ne: SmallVec<[i64; 4]> = SmallVec::new();
        // A hit, the address of a variable, and the address of a member (`&p->f`, `&s.f`:
        // computing it from a null `p` is undefined, and real code passes such addresses as
        // list heads and out-parameters) are never null.
        if f.is_hit(e) || matches!(a.kind(e), EKind::Addr(_) | EKind::Field(..)) {
            ne.push(0);
        }
        if let EKind::Int(v) = a.kind(e) {
            // A constant compared with a constant: just evaluate.
            for c in cs.iter().filter(|c| c.e == e) {
                if !c.rel.eval(*v, c.k) {
                    return true;
                }
            }
        }
        while i < cs.len() && cs[i].e == e {
            let c = cs[i];
            match c.rel {
                Rel::Eq => {
                    if eq.is_some_and(|x| x != c.k) {
                        return true;
                    }
                    eq = Some(c.k);
                }
                Rel::Ne => ne.push(c.k),
                Rel::Lt => hi = hi.min(c.k.saturating_sub(1)),
                Rel::Le => hi = hi.min(c.k),
                Rel::Gt => lo = lo.max(c.k.saturating_add(1)),
                Rel::Ge => lo = lo.max(c.k),
            }
            i += 1;
        }
        if lo > hi {
            return true;
        }
        if let Some(v) = eq
            && (v < lo || v > hi || ne.contains(&v))
        {
            return true;
        }
        if lo == hi && ne.contains(&lo) {
            return true;
        }
    }
    false
}

/// The strong updates of §4.8 on tagged regions, applied before the feasibility check:
/// - a tag location that misses holds no reference and is dropped; a region whose tags are
///   all dropped holds no reference and leaves S;
/// - a hit `*x` whose only region of S is tagged with a single location `*y` is that very
///   location, so `*y` hits too.
pub fn apply_tags(a: &mut Arena, f: &mut Fact) {
    if f.tags.is_empty() {
        return;
    }
    let tagged: SmallVec<[Region; 4]> = {
        let mut v: SmallVec<[Region; 4]> = f.tags.iter().map(|(r, _)| *r).collect();
        v.dedup();
        v
    };
    let t = f.tags.clone();
    let mut kept: SmallVec<[(Region, E); 2]> = SmallVec::new();
    for (r, e) in t {
        if !miss(a, f, e) {
            kept.push((r, e));
        }
    }
    if kept.len() != f.tags.len() {
        for r in tagged {
            if !kept.iter().any(|(x, _)| *x == r) {
                f.regions.remove(r);
            }
        }
        f.tags = kept;
    }
    let mut more: SmallVec<[E; 2]> = SmallVec::new();
    for &h in &f.hits {
        let EKind::Deref(x) = *a.kind(h) else {
            continue;
        };
        let p = a.pt(x);
        if p.all_memory {
            continue;
        }
        let mut only = None;
        let mut n = 0;
        for r in p.iter() {
            if f.regions.contains(r) {
                only = Some(r);
                n += 1;
            }
        }
        if n == 1
            && let Some(r) = only
            && let [(_, y)] = f.tags_of(r)
            && *y != h
            && !f.is_hit(*y)
        {
            more.push(*y);
        }
    }
    if !more.is_empty() {
        f.hits.extend(more);
        f.hits.sort_unstable();
        f.hits.dedup();
    }
}

/// `Cleanup(d)` of Figure 2, plus the §4.8 strong update for variable regions: a variable's
/// region holds one location, so when that location is known to miss, the region cannot hold a
/// pointer to the cell and leaves S.
pub fn cleanup(a: &mut Arena, f: &mut Fact) {
    // Strong updates: Var regions whose single location misses.
    let m = f.misses.clone();
    for e in m {
        if let EKind::Deref(x) = *a.kind(e) {
            let p = a.pt(x);
            let regions: SmallVec<[Region; 4]> = p.iter().collect();
            if !p.all_memory && regions.len() == 1 && regions[0].is_var() {
                f.regions.remove(regions[0]);
            }
        }
    }
    let s = f.regions.clone();
    let m = f.misses.clone();
    f.misses = m
        .into_iter()
        .filter(|e| !implicit_miss(a, *e, &s))
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Program;
    use crate::probe::snippet::SnippetProgram;

    const SRC: &str = "struct list { int data; struct list *next; };\n\
        void f(struct list *x, struct list *y, int n) { }\n";

    /// The values of `x`, `y` and `n`, and the `next` field `x->next`.
    struct Exprs {
        x: E,
        y: E,
        n: E,
        x_next: E,
    }

    fn exprs(prog: &SnippetProgram, a: &mut Arena) -> Exprs {
        let f = prog.func("f");
        let ir = prog.body(f);
        // Which locals have their address taken decides their regions.
        a.learn_function(f, &ir);
        let mut var = |name: &str| {
            let l = prog.local(f, name);
            a.var(f, l, &ir.local(l).ty)
        };
        let (x, y, n) = (var("x"), var("y"), var("n"));
        let next = a.string("next");
        let lty = a.ty(x).clone();
        let fa = a.mk(
            EKind::Field(x, next),
            &crate::ir::Type::pointer_to(lty.clone()),
        );
        let x_next = a.deref(fa);
        Exprs { x, y, n, x_next }
    }

    /// The regions of location `e`.
    fn regions(a: &mut Arena, e: E) -> RegionSet {
        let EKind::Deref(p) = *a.kind(e) else {
            panic!("a location")
        };
        a.pt(p)
    }

    #[test]
    fn join_unions_the_regions_and_intersects_hits_misses_and_constraints() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, n, .. } = exprs(&prog, &mut a);
        let (rx, ry) = (regions(&mut a, x), regions(&mut a, y));
        let mut left = Fact::new(rx.clone(), [x], [y]);
        left.constraints.push(Constraint {
            e: n,
            rel: Rel::Eq,
            k: 0,
        });
        let right = Fact::new(ry.clone(), [x, y], []);
        assert!(left.join(&right));
        assert!(left.regions.is_subset(&{
            let mut u = rx.clone();
            u.union_with(&ry);
            u
        }));
        assert!(rx.is_subset(&left.regions) && ry.is_subset(&left.regions));
        assert_eq!(left.hits.as_slice(), &[x]);
        assert!(left.misses.is_empty());
        assert!(left.constraints.is_empty());
        assert!(!left.join(&right), "joining again changes nothing");
        let mut tainted = right.clone();
        tainted.tainted = true;
        assert!(left.join(&tainted) && left.tainted);
    }

    #[test]
    fn join_keeps_one_sides_tags_and_the_union_where_both_are_tagged() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, x_next, .. } = exprs(&prog, &mut a);
        let s = regions(&mut a, x_next);
        let r = s.iter().next().expect("the `next` region");
        // The cell is at `x->next` on one side and at `y` (a variable, untagged) on the other.
        let mut tagged = Fact::probe(s.clone(), x_next, []);
        let other = Fact::new(regions(&mut a, y), [y], []);
        tagged.join(&other);
        assert_eq!(
            tagged.tags_of(r),
            &[(r, x_next)],
            "only one side has the region"
        );
        // Both sides have it: one tagged, one ⊤ gives ⊤.
        let mut tagged = Fact::probe(s.clone(), x_next, []);
        tagged.join(&Fact::new(s.clone(), [], [x]));
        assert!(!tagged.is_tagged(r));
    }

    #[test]
    fn implicit_misses_are_values_outside_s_and_integers() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, n, .. } = exprs(&prog, &mut a);
        let s = regions(&mut a, x);
        let zero = a.int(0);
        assert!(implicit_miss(&mut a, zero, &s));
        assert!(implicit_miss(&mut a, n, &s), "an integer holds no pointer");
        assert!(implicit_miss(&mut a, y, &s), "`y` is not in S");
        assert!(!implicit_miss(&mut a, x, &s));
        // An interior pointer misses when its base does.
        let one = a.int(1);
        let ty = a.ty(x).clone();
        let x1 = a.mk(EKind::Bin(crate::ir::BinOp::Add, x, one), &ty);
        let f = Fact::new(s.clone(), [], [x]);
        assert!(miss(&mut a, &f, x1));
        assert!(!miss(&mut a, &Fact::new(s, [], []), x1));
    }

    #[test]
    fn a_hit_that_misses_or_contradictory_constraints_or_relations_are_infeasible() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, n, .. } = exprs(&prog, &mut a);
        let mut s = regions(&mut a, x);
        s.union_with(&regions(&mut a, y));
        assert!(!infeasible(&mut a, &Fact::new(s.clone(), [x], [y])));
        assert!(infeasible(&mut a, &Fact::new(s.clone(), [x], [x])));
        let mut c = Fact::new(s.clone(), [], []);
        c.constraints.push(Constraint {
            e: n,
            rel: Rel::Gt,
            k: 4,
        });
        c.constraints.push(Constraint {
            e: n,
            rel: Rel::Lt,
            k: 5,
        });
        c.normalize();
        assert!(infeasible(&mut a, &c), "no integer is in (4, 5)");
        let mut null_hit = Fact::new(s.clone(), [x], []);
        null_hit.constraints.push(Constraint {
            e: x,
            rel: Rel::Eq,
            k: 0,
        });
        assert!(infeasible(&mut a, &null_hit), "a hit is not NULL");
        let mut both = Fact::new(s.clone(), [x, y], []);
        assert!(!infeasible(&mut a, &both));
        both.relations.push(PtrRel::new(x, y, false));
        assert!(
            infeasible(&mut a, &both),
            "two different values cannot both hit"
        );
        let mut eq = Fact::new(s, [x], [y]);
        eq.relations.push(PtrRel::new(x, y, true));
        assert!(
            infeasible(&mut a, &eq),
            "equal values, one hits and one misses"
        );
    }

    #[test]
    fn constraints_on_a_value_plus_a_number_are_constraints_on_the_value() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, n, .. } = exprs(&prog, &mut a);
        let s = regions(&mut a, x);
        let int = crate::ir::Type::Int;
        let one = a.int(1);
        let zero = a.int(0);
        let n1 = a.mk(EKind::Bin(crate::ir::BinOp::Add, n, one), &int);
        let neg = a.mk(EKind::Bin(crate::ir::BinOp::Sub, zero, n), &int);
        let num = a.mk(EKind::Num, &int);
        let num1 = a.mk(EKind::Bin(crate::ir::BinOp::Add, num, one), &int);
        let fact = |cs: &[(E, Rel, i64)]| {
            let mut f = Fact::new(s.clone(), [], []);
            f.constraints
                .extend(cs.iter().map(|&(e, rel, k)| Constraint { e, rel, k }));
            f.normalize();
            f
        };
        // `i < 128`, then `i++` and the exit test `i >= 128`: `i` was 127.
        let exit = [(n, Rel::Lt, 128), (n1, Rel::Ge, 128)];
        assert!(!infeasible(&mut a, &fact(&exit)));
        let mut past = exit.to_vec();
        past.push((n1, Rel::Ne, 128));
        assert!(infeasible(&mut a, &fact(&past)), "`i + 1` is 128");
        assert!(
            infeasible(&mut a, &fact(&[(n, Rel::Gt, 0), (neg, Rel::Ge, 0)])),
            "`0 - n >= 0` is `n <= 0`"
        );
        assert!(
            !infeasible(&mut a, &fact(&[(num, Rel::Lt, 0), (num1, Rel::Gt, 5)])),
            "two `<number>`s are two values"
        );
    }

    #[test]
    fn cleanup_takes_a_missed_variable_out_of_s_and_drops_implicit_misses() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, n, .. } = exprs(&prog, &mut a);
        let (rx, ry) = (regions(&mut a, x), regions(&mut a, y));
        let mut s = rx.clone();
        s.union_with(&ry);
        let mut f = Fact::new(s, [x], [y, n]);
        cleanup(&mut a, &mut f);
        assert!(
            !f.regions.intersects(&ry),
            "`y` misses: its one location holds nothing"
        );
        assert!(rx.is_subset(&f.regions));
        assert!(f.misses.is_empty(), "`y` and `n` now miss implicitly");
    }

    #[test]
    fn a_tag_that_misses_is_dropped_and_its_region_leaves_s() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x_next, .. } = exprs(&prog, &mut a);
        let s = regions(&mut a, x_next);
        let mut f = Fact::probe(s.clone(), x_next, []);
        f.hits.clear();
        f.misses.push(x_next);
        apply_tags(&mut a, &mut f);
        assert!(!f.regions.intersects(&s), "the strong update of §4.8");
        assert!(f.tags.is_empty());
    }

    #[test]
    fn facts_differing_only_in_a_condition_join_and_others_stay_apart() {
        let prog = SnippetProgram::new(SRC);
        let mut a = Arena::new(prog.env(), prog.classes());
        let Exprs { x, y, n, .. } = exprs(&prog, &mut a);
        let name = crate::ir::condition_variable("defined(X)", "u.c");
        let g = a.string(&name);
        let addr = a.mk(
            EKind::Addr(super::super::expr::Sym::Global(g)),
            &crate::ir::Type::pointer_to(crate::ir::Type::Int),
        );
        let d = a.deref(addr);
        assert!(condition_read(&a, d) && !condition_read(&a, n));
        let rx = regions(&mut a, x);
        let with = |rel: Rel, misses: &[E]| {
            let mut f = Fact::new(rx.clone(), [x], misses.iter().copied());
            f.constraints.push(Constraint { e: d, rel, k: 0 });
            f.normalize();
            f
        };
        let defined = with(Rel::Ne, &[]);
        assert!(defined.joins_losslessly(&with(Rel::Eq, &[]), &a));
        assert!(defined.joins_losslessly(&with(Rel::Ne, &[y]), &a));
        assert!(!defined.joins_losslessly(&with(Rel::Eq, &[y]), &a));
        assert_eq!(defined.index(&mut a), with(Rel::Eq, &[]).index(&mut a));
    }
}
