//! The error-cell abstraction (S, H, M) of §4.2 and the helper functions of Figure 2.

use super::expr::{Arena, E, EKind, Sym};
use crate::regions::{Region, RegionSet};
use smallvec::SmallVec;

/// What we know about the error cell at a program point:
/// - `s`: regions that may hold pointers to it;
/// - `h`: expressions that point to it (hit set);
/// - `m`: expressions that do not (miss set).
///
/// `tainted` records that the fact passed a statement the front end could not model; a
/// validating allocation reached by a tainted fact is reported `unproved`, not `leak`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fact {
    pub s: RegionSet,
    pub h: SmallVec<[E; 4]>,
    pub m: SmallVec<[E; 4]>,
    pub tainted: bool,
}

impl Fact {
    pub fn new(
        s: RegionSet,
        h: impl IntoIterator<Item = E>,
        m: impl IntoIterator<Item = E>,
    ) -> Fact {
        let mut f = Fact {
            s,
            h: h.into_iter().collect(),
            m: m.into_iter().collect(),
            tainted: false,
        };
        f.normalize();
        f
    }

    pub fn normalize(&mut self) {
        self.h.sort_unstable();
        self.h.dedup();
        self.m.sort_unstable();
        self.m.dedup();
    }

    pub fn hits(&self, e: E) -> bool {
        self.h.binary_search(&e).is_ok()
    }
    pub fn in_miss_set(&self, e: E) -> bool {
        self.m.binary_search(&e).is_ok()
    }

    /// The join of §4.2: S1 ∪ S2, H1 ∩ H2, M1 ∩ M2. Returns whether `self` changed.
    pub fn join(&mut self, other: &Fact) -> bool {
        let mut changed = self.s.union_with(&other.s);
        let h0 = self.h.len();
        self.h.retain(|e| other.h.binary_search(e).is_ok());
        let m0 = self.m.len();
        self.m.retain(|e| other.m.binary_search(e).is_ok());
        changed |= self.h.len() != h0 || self.m.len() != m0;
        if other.tainted && !self.tainted {
            self.tainted = true;
            changed = true;
        }
        changed
    }

    /// The index of the separated abstraction (§4.8): the regions holding hit expressions.
    pub fn index(&self, a: &mut Arena) -> RegionSet {
        let mut idx = RegionSet::empty();
        for &e in &self.h {
            if let EKind::Deref(x) = *a.kind(e) {
                let p = a.pt(x);
                idx.union_with(&p);
            }
        }
        idx
    }
}

/// `ImplicitMiss(e, d)` of Figure 2, plus the type-safety reading of the paper's language: a
/// value of integer type never references the cell.
pub fn implicit_miss(a: &mut Arena, e: E, s: &RegionSet) -> bool {
    match a.kind(e).clone() {
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

/// `Miss(e, d)`: explicitly or implicitly missing.
pub fn miss(a: &mut Arena, f: &Fact, e: E) -> bool {
    f.in_miss_set(e) || implicit_miss(a, e, &f.s)
}

/// `Infeasible(d)`: some expression both hits and misses — a contradiction.
pub fn infeasible(a: &mut Arena, f: &Fact) -> bool {
    let h = f.h.clone();
    h.into_iter().any(|e| miss(a, f, e))
}

/// `Cleanup(d)` of Figure 2, plus the §4.8 strong update for variable regions: a variable's
/// region holds one location, so when that location is known to miss, the region cannot hold a
/// pointer to the cell and leaves S.
pub fn cleanup(a: &mut Arena, f: &mut Fact) {
    // Strong updates: Var regions whose single location misses.
    let m = f.m.clone();
    for e in m {
        if let EKind::Deref(x) = *a.kind(e) {
            let p = a.pt(x);
            let regions: SmallVec<[Region; 4]> = p.iter().collect();
            if !p.all_memory && regions.len() == 1 && regions[0].is_var() {
                f.s.remove(regions[0]);
            }
        }
    }
    let s = f.s.clone();
    let m = f.m.clone();
    f.m = m
        .into_iter()
        .filter(|e| !implicit_miss(a, *e, &s))
        .collect();
}
