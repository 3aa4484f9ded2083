//! Calls at a call node: which callees are explored (depth limits, indirect targets, chain
//! compression), the MOD summary of a call that is not explored (`unexplored_call`), and calls
//! of body-less functions (`bodyless_call`: the C library model and unknown callees).

use super::frames::Frames;
use super::worklist::Prov;
use super::{Ctx, Engine, SlotId};
use crate::ir::library::{Returns, known_function};
use crate::ir::{Callee, NodeId, Type};
use crate::probe::NeverReturns;
use crate::probe::expr::{E, EKind, Sym};
use crate::probe::state::{Fact, miss};
use crate::probe::{FuncId, Loc};
use crate::regions::{Region, RegionSet};

/// Calls nested deeper than this (callee of a callee of …) are not explored: they are applied
/// through their MOD summary, or treated like body-less unknown functions when that cannot be
/// done soundly (the paper ignores callees more than one level deep).
const MAX_CALLEE_DEPTH: u32 = 2;

/// A pure-descent self-call (see `sites::descent`) is still explored this many calls past the
/// depth limit: its context forgets all caller frames but the nearest and one ancestor
/// (`ANCESTOR`), so deeper calls find the context of the call above them and the recursion
/// closes as a fixpoint instead of being summarised.
const CHAIN_EXTRA_DEPTH: u32 = 1;

/// A call whose result is the tracked reference is explored deeper: the block may be made by
/// an allocator wrapper several levels down (`make` → `new` → `malloc`).
const MAX_RETURN_DEPTH: u32 = 5;

use crate::probe::MAX_INDIRECT_TARGETS;

/// Why a call is applied without exploring the callee's body: there is none here, or the
/// callee may write any memory and the call is deeper than callees are followed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum NoBody {
    Missing,
    TooDeep,
}

impl NoBody {
    /// How a path that ends at the call names the callee (the reason of an `escaped`).
    fn describe(self, callee: &str) -> String {
        match self {
            NoBody::Missing => format!("`{callee}`, which has no body here"),
            NoBody::TooDeep => {
                format!("`{callee}`, which may write any memory and is not followed this deep")
            }
        }
    }
}

impl<'p> Engine<'p> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn at_call(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        d: &Fact,
        dest: Option<crate::ir::ExprId>,
        callee: &Callee,
        args: &[crate::ir::ExprId],
    ) {
        let dest_e = dest.map(|x| self.tr(func, x));
        let args_e: Vec<E> = args.iter().map(|a| self.tr(func, *a)).collect();
        let (mut targets, name): (Vec<FuncId>, Option<String>) = match callee {
            Callee::Direct(n) => (
                self.prog.resolve(func, n).into_iter().collect(),
                Some(n.clone()),
            ),
            Callee::Indirect(_) => (self.prog.indirect_targets(args.len()), None),
        };
        let depth = self.contexts.depth.get(&ctx).copied().unwrap_or(0);
        let dest_hit = dest_e.is_some_and(|de| {
            let t = self.arena.deref(de);
            d.is_hit(t)
        });
        let max_depth = if dest_hit {
            MAX_RETURN_DEPTH
        } else {
            MAX_CALLEE_DEPTH
        };
        if targets.len() > MAX_INDIRECT_TARGETS {
            // Too many possible targets: like a body-less unknown function (an unsound
            // assumption, docs/engine.md: what the targets write to globals is not seen).
            targets.clear();
        }
        // A call of functions that never return (the project's own `fatal`, `die`, a wrapper
        // that ends in `exit`) ends the path: the fact after it is never reached.
        if !targets.is_empty()
            && let Some(why) = self.never_return_reason(&targets)
        {
            self.refute(func, node, why);
            return;
        }
        // A pure-descent self-call past the depth limit is still explored with its caller
        // frames compressed, so that the recursion closes on a context already made: one
        // call deeper new contexts are made, further down only existing ones are used.
        let mut frames = Frames::Exact;
        let mut no_body = NoBody::Missing;
        if let [g] = targets.as_slice()
            && self.chain_link(func, node, ctx, *g).is_some()
            && depth >= max_depth
        {
            frames = if depth < max_depth + CHAIN_EXTRA_DEPTH {
                Frames::Compress
            } else {
                Frames::CompressReuse
            };
        }
        // Callees that cannot touch the fact, or too deep to explore, are applied through
        // their MOD summaries instead of being explored (the union of the targets' for a call
        // through a function pointer).
        //
        // A call that can only refine the path's constraints (the cell is not passed to it,
        // nothing it may write or free holds or names the cell, its result is not the
        // reference) is summarised too when exploring it would walk much code (`heavy`),
        // keeping the constants it can return (`returns`); what the summary forgets of the
        // path condition makes the fact `assumed` (`with_result`). Not when the MOD summary
        // cannot cover the callee (calls through pointers, opaque code): treating it as
        // body-less would assume that an argument not known to hold the cell does not.
        if !targets.is_empty() {
            if let Some(w) = self.mod_union(&targets) {
                let w = self.with_slot_args(&targets, w, &args_e);
                let may_free = targets.iter().any(|g| self.may_free_cell(d, *g, &args_e));
                let instead_of_exploring = !dest_hit
                    && frames == Frames::Exact
                    && !may_free
                    && self.heavy(&targets)
                    && self.cell_untouched(d, &w, dest_e, &args_e);
                let relevant = may_free || self.call_relevant(d, &w, dest_e, &args_e);
                if instead_of_exploring
                    || !relevant
                    || (depth >= max_depth && frames == Frames::Exact)
                {
                    if instead_of_exploring && let Some(st) = self.stats.as_mut() {
                        st.explored("summarised: large, only constraints read it");
                    }
                    let returns = self.return_constants_of(&targets);
                    self.unexplored_call(
                        id,
                        func,
                        node,
                        ctx,
                        d,
                        &targets,
                        &w,
                        dest_e,
                        &args_e,
                        (returns, instead_of_exploring),
                    );
                    return;
                }
                if self.stats.is_some() {
                    let why = if targets.len() > 1 {
                        "several targets (indirect call)"
                    } else {
                        self.why_relevant(d, &w, targets[0], dest_e, &args_e, dest_hit)
                    };
                    if let Some(st) = self.stats.as_mut() {
                        st.explored(why);
                    }
                }
            } else if !dest_hit
                && frames == Frames::Exact
                && self.cursor.witness.is_none()
                && self.cell_only_in_locals(d)
                && !self.arg_holds_hit(d, &args_e)
            {
                // A callee that may write anything, but every reference to the cell is in
                // locals whose address is never taken, and no argument holds it: the callee
                // cannot reach the cell, so exploring it could only refine the path's
                // constraints. It is applied as writing all memory (other references the
                // fact does not know of may have been dropped there, so S becomes "all
                // memory" and the fact is tainted), and what it forgets of the path
                // condition makes the fact `assumed`, as for a large callee.
                if let Some(st) = self.stats.as_mut() {
                    st.explored("summarised: writes anything, the cell only in locals");
                }
                let returns = self.return_constants_of(&targets);
                self.unexplored_call(
                    id,
                    func,
                    node,
                    ctx,
                    d,
                    &targets,
                    &RegionSet::all_memory(),
                    dest_e,
                    &args_e,
                    (returns, true),
                );
                return;
            } else if depth >= max_depth {
                targets.clear();
                no_body = NoBody::TooDeep;
            } else if let Some(st) = self.stats.as_mut() {
                st.explored(if dest_hit {
                    "result is the reference"
                } else {
                    "writes anything (unmodelled code)"
                });
            }
        }
        if targets.is_empty() {
            let at = self.loc(func, node);
            match self.bodyless_call(d, (name.as_deref(), no_body), dest_e, &args_e, false, at) {
                Ok(f) => self.insert_preds(func, node, ctx, f, Prov::Edge(id)),
                Err(PathEnd::Refuted(why)) => self.refute(func, node, why),
                Err(PathEnd::Escaped(callee)) => self.escaped(func, node, callee),
            }
            return;
        }
        // Facts a deep recursive call could not map to an existing context.
        let mut unmapped = false;
        for &g in &targets {
            let gb = self.body(g);
            // M3 then M2 (backward): `ret ← 0` after `*dest ← ret`.
            let mut cur = d.clone();
            if let Some(r) = gb.ret {
                let mut ra = self.local_addr(g, r);
                if g == func {
                    // A recursive call: the callee's `ret` is another frame's variable than
                    // the caller's. It is named `Frozen(0, g, ret)` until `enter_callee`
                    // renames it to the callee's own `ret` (and freezes the caller's).
                    let ty = self.arena.ty(ra).clone();
                    ra = self.arena.mk(EKind::Addr(Sym::Frozen(0, g, r)), &ty);
                }
                let z = self.zero();
                let Some(f) = self.assign(&cur, ra, z) else {
                    self.refute(func, node, "the call's result contradicts it".into());
                    continue;
                };
                cur = f;
                if let Some(de) = dest_e {
                    let cases = self.assign_copy(&cur, de, ra);
                    if cases.is_empty() {
                        let t = self.stmt_text(func, node);
                        self.refute(func, node, format!("`{t}` contradicts it"));
                    }
                    for f in cases {
                        unmapped |=
                            !self.enter_callee(func, node, ctx, f, g, Some(id), false, frames);
                    }
                    continue;
                }
            } else if let Some(de) = dest_e {
                let u = self.arena.mk(EKind::Unknown, &Type::Unknown);
                match self.assign(&cur, de, u) {
                    Some(f) => cur = f,
                    None => continue,
                }
            }
            unmapped |= !self.enter_callee(func, node, ctx, cur, g, Some(id), false, frames);
        }
        if unmapped
            && let [g] = targets.as_slice()
            && let Some(w) = self.mod_regions(*g)
        {
            let w = self.with_slot_args(&[*g], w, &args_e);
            self.unexplored_call(
                id,
                func,
                node,
                ctx,
                d,
                &[*g],
                &w,
                dest_e,
                &args_e,
                (None, false),
            );
        }
    }

    /// A call of `g` applied through its MOD summary `w` instead of being explored.
    ///
    /// The summary is the fact with what `g` may write forgotten, which covers every way the
    /// call could have changed the memory a pre-existing cell lives in. It cannot say that
    /// the cell was made inside `g`. That is possible when `g` may allocate, writes a region
    /// of S (or the destination is one), and no hit expression survives the call (each reads
    /// what `g` writes, or there was none). The fact is then tainted: what can still refute
    /// it holds whatever made the cell (the path's constraints and relations), the entry of
    /// `main` ("no heap before the program starts") does not, and an allocation it reaches is
    /// no evidence of a leak. Otherwise a hit passed to `g` escapes when unknown calls make
    /// pointers escape (the callee is treated like a body-less one).
    ///
    /// A callee that writes no memory that existed before the call (`ModSet::writes_old`)
    /// changes no location the fact can name: its summary only assigns the destination.
    #[allow(clippy::too_many_arguments)]
    fn unexplored_call(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        d: &Fact,
        gs: &[FuncId],
        w: &RegionSet,
        dest_e: Option<E>,
        args_e: &[E],
        (returns, instead_of_exploring): (Option<std::sync::Arc<[i64]>>, bool),
    ) {
        let mut ms = crate::regions::ModSet::default();
        for &g in gs {
            ms.union_with(&self.prog.mod_set(g));
        }
        let callee = match gs {
            [g] => self.prog.function_name(*g),
            _ => gs
                .iter()
                .map(|g| self.prog.function_name(*g))
                .collect::<Vec<_>>()
                .join("`, `"),
        };
        // Only a pointer argument can hand the block over: `t->height` read from a hit block
        // is a number, and passing it lets nothing escape.
        let pointer_args: Vec<E> = args_e
            .iter()
            .copied()
            .filter(|a| crate::probe::expr::is_pointerish(self.arena.ty(*a)))
            .collect();
        let escapes = self.cfg.unknown_calls_escape && self.arg_holds_hit(d, &pointer_args);
        // Every location the fact can name keeps its value: only the destination changes.
        let writes_nothing_old = !ms.writes_old && !ms.all && !escapes;
        let dw = dest_e.map(|de| self.arena.pt(de));
        let kept = d.hits.iter().any(|e| {
            (writes_nothing_old || self.disjoint(*e, w))
                && dw.as_ref().is_none_or(|dw| self.disjoint(*e, dw))
        });
        let writes_s =
            d.regions.intersects(w) || dw.as_ref().is_some_and(|dw| d.regions.intersects(dw));
        // A feasibility witness carries no cell, only the path's constraints.
        let made_inside = !kept && writes_s && self.cursor.witness.is_none() && ms.allocates;
        if escapes && !made_inside {
            self.escaped(func, node, format!("`{callee}` (not followed this deep)"));
            return;
        }
        let at = self.loc(func, node);
        let Some(mut f) =
            self.summarise_call(d, (!writes_nothing_old).then_some(w), None, (&callee, at))
        else {
            let t = self.stmt_text(func, node);
            self.refute(func, node, format!("`{t}` contradicts it"));
            return;
        };
        // An argument the callee frees unless it is NULL is not the cell before the call:
        // had it been, the cell would be freed, not leaked.
        for i in self.freed_by_all(gs) {
            let Some(&a) = args_e.get(i) else {
                continue;
            };
            if f.is_hit(a) {
                let t = self.stmt_text(func, node);
                self.refute(func, node, format!("`{t}` frees it"));
                return;
            }
            if !crate::probe::state::mentions_unknown_value(&self.arena, a)
                && !miss(&mut self.arena, &f, a)
            {
                f.misses.push(a);
                f.normalize();
            }
        }
        f.tainted |= made_inside;
        // A call summarised instead of explored (`at_call`): a constraint or relation it
        // forgot may be one its body would have decided.
        let assume = instead_of_exploring.then(|| {
            f.constraints.len() < d.constraints.len() || f.relations.len() < d.relations.len()
        });
        // A callee that returns one of its number parameters unchanged returns the argument:
        // a number as passed (a pointer converted to the parameter's type is not itself).
        let returned_arg = match gs {
            [g] => self
                .returned_param(*g)
                .and_then(|k| args_e.get(k).copied())
                .filter(|a| !crate::probe::expr::is_pointerish(self.arena.ty(*a))),
            _ => None,
        };
        self.with_result(
            id,
            func,
            node,
            ctx,
            f,
            dest_e,
            (returns, returned_arg, assume),
            &callee,
        );
    }

    /// The parameters (by position) every one of `gs` frees unless they are NULL
    /// (`Program::freed_params`).
    fn freed_by_all(&mut self, gs: &[FuncId]) -> Vec<usize> {
        let mut out: Option<Vec<bool>> = None;
        for &g in gs {
            let prog = self.prog;
            let fp = self
                .caches
                .freed_params
                .entry(g)
                .or_insert_with(|| prog.freed_params(g))
                .clone();
            out = Some(match out {
                None => fp.to_vec(),
                Some(o) => o.iter().zip(fp.iter()).map(|(a, b)| *a && *b).collect(),
            });
        }
        out.unwrap_or_default()
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.then_some(i))
            .collect()
    }

    /// Backwards over the assignment of a summarised call's result to `dest`: with the
    /// constants the callee can return (`returns`), one fact per value; the argument it
    /// returns unchanged (`returned_arg`, `returns::returned_param`); otherwise an unknown
    /// value. The facts go to the call's predecessors.
    ///
    /// `assume` is set for a call summarised instead of explored, with whether the summary
    /// already forgot part of the path condition: a fact that lost a constraint or relation
    /// there is `assumed`, so that a leak found on it is `unproved (imprecise)` rather than
    /// reported (the callee's body might have ruled the path out), while a contradiction
    /// found past it is still a proof.
    #[allow(clippy::too_many_arguments)]
    fn with_result(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        mut f: Fact,
        dest: Option<E>,
        (returns, returned_arg, assume): (Option<std::sync::Arc<[i64]>>, Option<E>, Option<bool>),
        callee: &str,
    ) {
        if assume == Some(true) {
            f.assumed = true;
        }
        let Some(de) = dest else {
            self.insert_preds(func, node, ctx, f, Prov::Edge(id));
            return;
        };
        let Some(vs) = returns else {
            let u = match returned_arg {
                Some(a) => a,
                None => self.arena.mk(EKind::Unknown, &Type::Unknown),
            };
            match self.assign(&f, de, u) {
                Some(mut g) => {
                    if assume.is_some()
                        && (g.constraints.len() < f.constraints.len()
                            || g.relations.len() < f.relations.len())
                    {
                        g.assumed = true;
                    }
                    self.insert_preds(func, node, ctx, g, Prov::Edge(id))
                }
                None => self.refute(func, node, "the call's result contradicts it".into()),
            }
            return;
        };
        let place = self.arena.deref(de);
        let ty = self.arena.ty(place).clone();
        let mut any = false;
        for &v in vs.iter() {
            let k = self.arena.mk(EKind::Int(v), &ty);
            if let Some(g) = self.assign(&f, de, k) {
                any = true;
                self.insert_preds(func, node, ctx, g, Prov::Edge(id));
            }
        }
        if !any {
            let shown: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
            self.refute(
                func,
                node,
                format!("`{callee}` returns only {}", shown.join(", ")),
            );
        }
    }

    /// The constants a call of `targets` can return, when each target returns only
    /// constants (`returns::return_constants`).
    fn return_constants_of(&mut self, targets: &[FuncId]) -> Option<std::sync::Arc<[i64]>> {
        let mut all: Vec<i64> = Vec::new();
        for &g in targets {
            all.extend(self.return_constants(g)?.iter().copied());
        }
        all.sort_unstable();
        all.dedup();
        Some(all.into())
    }

    /// Whether a call cannot touch the cell: no hit, miss or relation reads what it may
    /// write (`w`) or its destination, and no argument is (part of) a hit.
    fn cell_untouched(&mut self, d: &Fact, w: &RegionSet, dest: Option<E>, args: &[E]) -> bool {
        !self.arg_holds_hit(d, args) && !self.reads_written(&cell_exprs(d), w, dest)
    }

    /// Whether one of `es` reads what a call may write: `w`, or its destination `dest`.
    fn reads_written(&mut self, es: &[E], w: &RegionSet, dest: Option<E>) -> bool {
        let dw = dest.map(|de| self.arena.pt(de));
        es.iter()
            .any(|e| !self.disjoint(*e, w) || dw.as_ref().is_some_and(|dw| !self.disjoint(*e, dw)))
    }

    /// What a call of `g` with arguments `args` may write: its MOD regions `w`, and when it
    /// writes pointer slots through `void **` (`ModSet::generic_slots`), the slots its
    /// pointer-to-pointer arguments point to (`FREE(&he)` writes `he`).
    fn with_slot_args(&mut self, gs: &[FuncId], mut w: RegionSet, args: &[E]) -> RegionSet {
        if !gs.iter().any(|g| self.prog.mod_set(*g).generic_slots) {
            return w;
        }
        for &a in args {
            let holds_pointer = self
                .arena
                .ty(a)
                .pointee()
                .is_some_and(|t| self.arena.env().resolve(t).is_pointer());
            if holds_pointer {
                let p = self.arena.pt(a);
                w.union_with(&p);
            }
        }
        w
    }

    /// The regions any of `gs` may write, transitively; `None` when one may write anything.
    fn mod_union(&mut self, gs: &[FuncId]) -> Option<RegionSet> {
        let mut w = RegionSet::empty();
        for &g in gs {
            w.union_with(&self.mod_regions(g)?);
        }
        Some(w)
    }

    /// The regions a function may write, transitively; `None` when it may write anything.
    pub(super) fn mod_regions(&mut self, g: FuncId) -> Option<RegionSet> {
        if let Some(r) = self.caches.mod_regions.get(&g) {
            return r.clone();
        }
        let m = self.prog.mod_set(g);
        let r = if m.all {
            None
        } else {
            let mut set = self.global_regions(m.globals.iter().map(String::as_str));
            for (class, field) in &m.fields {
                let c = self.arena.names.class(class);
                let f = self.arena.names.name(field);
                set.insert(Region::Field(c, f));
            }
            for class in &m.mems {
                let c = self.arena.names.class(class);
                set.insert(Region::Mem(c));
            }
            Some(set)
        };
        self.caches.mod_regions.insert(g, r.clone());
        r
    }

    /// The regions of the program's global variables `names`.
    fn global_regions<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) -> RegionSet {
        let mut set = RegionSet::empty();
        for name in names {
            let ty = self
                .arena
                .env()
                .globals
                .get(name)
                .map(|t| self.arena.env().resolve(t))
                .unwrap_or_default();
            let n = self.arena.string(name);
            let addr = self
                .arena
                .mk(EKind::Addr(Sym::Global(n)), &Type::pointer_to(ty));
            let p = self.arena.pt(addr);
            set.union_with(&p);
        }
        set
    }

    /// Whether a call can matter to fact `d` beyond growing S: a fact expression reads what
    /// the callee may write (`w`), the destination is read by the fact, or an argument is
    /// (part of) a hit expression.
    fn call_relevant(&mut self, d: &Fact, w: &RegionSet, dest: Option<E>, args: &[E]) -> bool {
        let mut exprs = cell_exprs(d);
        exprs.extend(d.constraints.iter().map(|c| c.e));
        self.reads_written(&exprs, w, dest) || self.arg_holds_hit(d, args)
    }

    /// Whether `g` may free a block of the cell's type (the type the hit expressions point
    /// to): applied through its summary, a call that frees the cell would look like one that
    /// leaves it alone, and the path would seem to lose it.
    fn may_free_cell(&mut self, d: &Fact, g: FuncId, args: &[E]) -> bool {
        let ms = self.prog.mod_set(g);
        // Freed through an untyped pointer, and a slot handed over (`mutt_mem_free(&p)` frees
        // `*(void **)ptr`; a pointer-to-pointer argument): the slot may hold the cell, whatever
        // its type. A hit argument is explored anyway. Other untyped frees still do not make
        // a call relevant: with every `free(char *)` counted, htop lost 158 proofs to the
        // budget (most callees free some string); such a summary errs towards a leak report.
        if ms.frees_untyped
            && !d.hits.is_empty()
            && args.iter().any(|a| {
                self.arena
                    .ty(*a)
                    .pointee()
                    .is_some_and(|t| self.arena.env().resolve(t).is_pointer())
            })
        {
            return true;
        }
        if ms.frees.is_empty() {
            return false;
        }
        d.hits.iter().any(|h| {
            let pointee = self.arena.ty(*h).pointee().cloned().unwrap_or_default();
            let t = self.arena.env().resolve(&pointee);
            !crate::regions::is_generic_pointee(&t)
                && ms.frees.contains(&self.prog.classes().class_of(&t))
        })
    }

    /// Why `call_relevant` or `may_free_cell` made a call of `g` explored (for the budget
    /// statistics, `stats`): the first of the reasons that holds.
    fn why_relevant(
        &mut self,
        d: &Fact,
        w: &RegionSet,
        g: FuncId,
        dest: Option<E>,
        args: &[E],
        dest_hit: bool,
    ) -> &'static str {
        if dest_hit {
            return "result is the reference";
        }
        if self.arg_holds_hit(d, args) {
            return "hit argument";
        }
        if self.reads_written(&cell_exprs(d), w, dest) {
            return "hits/misses read what it writes";
        }
        if self.may_free_cell(d, g, args) {
            return "may free the cell";
        }
        let cons: Vec<E> = d.constraints.iter().map(|c| c.e).collect();
        if self.reads_written(&cons, w, dest) {
            return "only constraints read what it writes";
        }
        "other"
    }

    /// Whether every reference the fact knows of, and every region that may hold one, is a
    /// local variable (of this frame or a caller's) whose address is never taken: then no
    /// callee can reach the cell except through its arguments.
    fn cell_only_in_locals(&mut self, d: &Fact) -> bool {
        if d.hits.is_empty() || d.regions.all_memory {
            return false;
        }
        if !d.regions.iter().all(|r| self.local_region(r)) {
            return false;
        }
        d.hits.iter().all(|&h| {
            let EKind::Deref(x) = *self.arena.kind(h) else {
                return false;
            };
            let p = self.arena.pt(x);
            !p.all_memory && !p.is_empty() && p.iter().all(|r| self.local_region(r))
        })
    }

    /// A region that is one non-global variable whose address is never taken (a local of
    /// this frame or a caller's, or a shadow of a formal).
    fn local_region(&self, r: Region) -> bool {
        match r {
            Region::Var(i) => !matches!(
                self.arena.names.var_path(i).root,
                crate::regions::VarRoot::Global(_)
            ),
            _ => false,
        }
    }

    fn arg_holds_hit(&self, d: &Fact, args: &[E]) -> bool {
        args.iter().any(|a| {
            d.is_hit(*a)
                || d.hits
                    .iter()
                    .any(|h| self.arena.contains(*h, *a) || self.arena.contains(*a, *h))
        })
    }

    /// A call applied through what the callee may write (`w`): S grows by its pointer-holding
    /// MOD regions, facts reading them are dropped, the destination gets an unknown value.
    /// `None`: the callee writes no memory that existed before the call, so only the
    /// destination changes.
    fn summarise_call(
        &mut self,
        d: &Fact,
        w: Option<&RegionSet>,
        dest: Option<E>,
        (callee, at): (&str, Loc),
    ) -> Option<Fact> {
        let mut cur = match w {
            Some(w) => {
                self.havoc_unknown(d, w, &format!("`{callee}` (not followed this deep)"), at)
            }
            None => d.clone(),
        };
        if let Some(de) = dest {
            let u = self.arena.mk(EKind::Unknown, &Type::Unknown);
            cur = self.assign(&cur, de, u)?;
        }
        cur.normalize();
        Some(cur)
    }

    /// A call to a function without a body (library or unknown), or whose body is not
    /// followed (`why`). `dest` is written unless `skip_dest` (the probe of that very write).
    pub(super) fn bodyless_call(
        &mut self,
        d: &Fact,
        (name, why): (Option<&str>, NoBody),
        dest: Option<E>,
        args: &[E],
        skip_dest: bool,
        at: Loc,
    ) -> Result<Fact, PathEnd> {
        if let Some(n) = name
            && self.prog.bodyless_never_returns(n)
        {
            return Err(PathEnd::Refuted(format!("`{n}` does not return")));
        }
        let known = name.and_then(known_function);
        let mut cur = d.clone();
        // The globals it sets (`getopt`'s `optind`, `errno`) are written like the memory
        // its arguments point to: what the fact says of them is forgotten, and what they
        // held may have been a reference (S grows).
        if let Some(n) = name {
            let w = self.global_regions(crate::ir::library::written_globals(n).iter().copied());
            if !w.is_empty() {
                cur = self.havoc(&cur, &w);
            }
        }
        let value = match known {
            Some(k) => {
                for (i, &a) in args.iter().enumerate() {
                    if k.writes_argument(i) && self.arena.ty(a).pointee().is_some() {
                        let w = self.arena.pt(a);
                        cur = self.havoc(&cur, &w);
                    }
                }
                match k.returns {
                    Returns::Number => self.arena.mk(EKind::Num, &Type::Int),
                    Returns::FirstArgument => match args.first() {
                        Some(&a0) => a0,
                        None => self.arena.mk(EKind::Unknown, &Type::Unknown),
                    },
                    // A pointer into a block, or NULL: the block's address plus an offset
                    // the analysis does not name, so that whether it is NULL stays open
                    // (`strchr` finds nothing, `fopen` fails) and it is never the cell
                    // unless the block is.
                    Returns::IntoFirstArgument => match args.first() {
                        Some(&a0) => self.somewhere_in(a0),
                        None => self.arena.mk(EKind::Unknown, &Type::Unknown),
                    },
                    Returns::StaticMemory => {
                        let s = self.arena.string("<library static memory>");
                        let a = self.arena.mk(
                            EKind::Addr(Sym::Global(s)),
                            &Type::pointer_to(Type::Unknown),
                        );
                        self.somewhere_in(a)
                    }
                }
            }
            None => {
                let callee = name.unwrap_or("a function pointer");
                if self.cfg.unknown_calls_escape {
                    for &arg in args {
                        if !crate::probe::expr::is_pointerish(self.arena.ty(arg)) {
                            continue;
                        }
                        if cur.hits.iter().any(|h| self.arena.contains(*h, arg)) {
                            return Err(PathEnd::Escaped(why.describe(callee)));
                        }
                        if !miss(&mut self.arena, &cur, arg) {
                            cur.misses.push(arg);
                        }
                    }
                }
                let mut w = RegionSet::empty();
                for &arg in args {
                    if self.arena.ty(arg).pointee().is_some() {
                        let p = self.arena.pt(arg);
                        w.union_with(&p);
                    }
                }
                // With `unknown-calls-escape = false` the user vouches for unknown callees:
                // they may write anything, but that alone does not make a leak unsure.
                let vouched = !self.cfg.unknown_calls_escape && !w.all_memory;
                if !self.cfg.unknown_calls_escape {
                    w = RegionSet::all_memory();
                }
                cur.normalize();
                let was = cur.tainted;
                if vouched {
                    cur = self.havoc(&cur, &w);
                    cur.tainted = was;
                } else {
                    cur = self.havoc_unknown(&cur, &w, &why.describe(callee), at);
                }
                self.arena.mk(EKind::Unknown, &Type::Unknown)
            }
        };
        cur.normalize();
        if let Some(dest) = dest
            && !skip_dest
        {
            return match self.assign(&cur, dest, value) {
                Some(f) => Ok(f),
                None => Err(PathEnd::Refuted("the call's result contradicts it".into())),
            };
        }
        match self.finish_fact(cur) {
            Some(f) => Ok(f),
            None => Err(PathEnd::Refuted("contradiction at the call".into())),
        }
    }

    /// `base + <number>`: a pointer into the block `base` points to, or NULL (a library
    /// result), of `base`'s type. The number is of type `LIBRARY_OFFSET`, so that it is not
    /// taken for an offset that stays inside the block (`state::infeasible`).
    fn somewhere_in(&mut self, base: E) -> E {
        let ty = self.arena.ty(base).clone();
        let off = self.arena.mk(
            EKind::Num,
            &Type::Named(crate::probe::state::LIBRARY_OFFSET.into()),
        );
        self.arena
            .mk(EKind::Bin(crate::ir::BinOp::Add, base, off), &ty)
    }

    /// Why a call of `targets` cannot return, when none of them can.
    fn never_return_reason(&self, targets: &[FuncId]) -> Option<String> {
        let mut why = None;
        for &g in targets {
            let stopper = self.prog.never_returns(g)?;
            why.get_or_insert_with(|| {
                let name = self.prog.function_name(g);
                match stopper {
                    NeverReturns::Calls(s) => {
                        format!("`{name}` does not return (every path in it ends in `{s}`)")
                    }
                    NeverReturns::Loops => format!("`{name}` does not return"),
                    NeverReturns::Configured => {
                        format!("`{name}` does not return (configured in `noreturn`)")
                    }
                }
            });
        }
        why
    }
}

/// The expressions that describe the cell: its hits and misses, and the sides of the
/// fact's relations (the constraints only describe the path).
fn cell_exprs(d: &Fact) -> Vec<E> {
    d.hits
        .iter()
        .chain(d.misses.iter())
        .copied()
        .chain(d.relations.iter().flat_map(|r| [r.l, r.r]))
        .collect()
}

/// Why a path ends at a call without going on: a contradiction, or an escape (the block is
/// handed to a function whose body is not analysed, described with its name).
pub(super) enum PathEnd {
    Refuted(String),
    Escaped(String),
}
