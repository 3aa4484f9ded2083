//! Map and Unmap (§4.4, Figures 4–5): a fact moves into a callee's exit under a context
//! (caller locals renamed to frozen symbols one frame up instead of the paper's Remove Info,
//! parameters bound to frame-stable arguments) and back out of its entry to each registered
//! call site (`formal ← shadow`, `scope(formal)`, `shadow ← actual`).

use super::frames::ChainLink;
use super::frames::Frames;
use super::worklist::Prov;
use super::{Ctx, Engine, SlotId};
use crate::ir::{LocalId, NodeId, StmtKind, Type};
use crate::probe::FuncId;
use crate::probe::expr::{ANCESTOR, E, EKind, MAX_FROZEN_DEPTH, Sym};
use crate::probe::state::{Constraint, Fact, PtrRel, infeasible};
use crate::regions::{Region, RegionSet, VarRoot};
use rustc_hash::FxHashMap;
use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use std::sync::Arc;

/// A callee context is found by what defines it: the callee, the mapped fact (without its
/// region set for a compressed context), whether it is a feasibility witness, the bound
/// parameters, and whether it continues a chain of pure-descent self-calls (see
/// `chain_link`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct ContextKey {
    callee: FuncId,
    fact: Fact,
    witness: bool,
    bindings: Vec<(LocalId, E)>,
    chain: bool,
}

/// The parameters of a callee context bound to frame-stable arguments of its call: inside the
/// call, a read of the parameter is a read of the argument.
pub(super) struct Bindings {
    callee: FuncId,
    params: Vec<(LocalId, E)>,
    /// Parameters the callee assigns somewhere, bound only at the statements before which
    /// no path has assigned them yet (bit `i` of `EntryParams::before`): there they still
    /// hold the caller's argument (`ls = add(ls, …)` passes the entry value on).
    early: Vec<(LocalId, u64, E)>,
    entry: Option<Arc<EntryParams>>,
}

/// Pointer parameters a function assigns somewhere (address never taken), at most 64, and per
/// statement the bit set of those not yet assigned on any path from the entry to it.
pub(super) struct EntryParams {
    params: Vec<LocalId>,
    before: Vec<u64>,
}

/// The callee contexts of Figure 8 and what is known about each.
pub(super) struct Contexts {
    /// Each context, found by what defines it.
    pub(super) keys: FxHashMap<ContextKey, Ctx>,
    /// The call sites that mapped a fact into each callee context.
    pub(super) registrations: FxHashMap<(FuncId, Ctx), Vec<Registration>>,
    /// The reverse summaries: the entry slots reached in each callee context.
    pub(super) summaries: FxHashMap<(FuncId, Ctx), Vec<SlotId>>,
    /// The number the next new context gets.
    pub(super) next: Ctx,
    /// How many calls deep each context is (`Ctx::BASE` is 0).
    pub(super) depth: FxHashMap<Ctx, u32>,
    /// Per callee context: the callee and its parameters bound to frame-stable arguments.
    pub(super) bindings: FxHashMap<Ctx, Bindings>,
    /// Expressions with the bindings of a context applied.
    pub(super) bound_cache: FxHashMap<(Ctx, E, u64), E>,
    /// Contexts on a chain of pure-descent self-calls that starts at a frame of the base
    /// context: the function and its descent parameter.
    pub(super) chains: FxHashMap<Ctx, ChainLink>,
}

impl Contexts {
    pub(super) fn new() -> Contexts {
        Contexts {
            keys: FxHashMap::default(),
            registrations: FxHashMap::default(),
            summaries: FxHashMap::default(),
            next: Ctx(1),
            depth: FxHashMap::default(),
            bindings: FxHashMap::default(),
            bound_cache: FxHashMap::default(),
            chains: FxHashMap::default(),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Registration {
    pub(super) func: FuncId,
    pub(super) node: NodeId,
    pub(super) ctx: Ctx,
    pub(super) caller_slot: Option<SlotId>,
    /// The caller frame the callee's `ANCESTOR` frame stands for, when the map named it so
    /// (`None`: the caller's own `ANCESTOR`, if any).
    pub(super) ancestor: Option<u8>,
}

/// The local a statement assigns as a whole or by member (`x = …`, `x = alloc`, `x = f(…)`,
/// `x.f = …`), or `Unknown` for code the front end did not model.
enum LocalWrite {
    None,
    Local(LocalId),
    Unknown,
}

fn local_write(b: &crate::ir::FunctionIr, id: NodeId) -> LocalWrite {
    let root = |e| match crate::probe::sites::written_local(b, e) {
        Some(l) => LocalWrite::Local(l),
        None => LocalWrite::None,
    };
    match &b.node(id).stmt.kind {
        StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => root(*addr),
        StmtKind::Call { dest: Some(d), .. } => root(*d),
        StmtKind::Opaque { .. } => LocalWrite::Unknown,
        _ => LocalWrite::None,
    }
}

/// A pointer local whose address is never taken: only its own assignments change it.
fn unaliased_pointer(b: &crate::ir::FunctionIr, l: LocalId) -> bool {
    let l = b.local(l);
    !l.address_taken && l.ty.is_pointer()
}

impl<'p> Engine<'p> {
    /// Parameters `g` never assigns and whose address it never takes: inside a call they keep
    /// the caller's argument.
    fn stable_params(&mut self, g: FuncId) -> Vec<LocalId> {
        if let Some(v) = self.caches.stable_params.get(&g) {
            return v.clone();
        }
        let b = self.body(g);
        let mut written: FxHashSet<LocalId> = FxHashSet::default();
        for id in b.node_ids() {
            match local_write(&b, id) {
                LocalWrite::Local(l) => {
                    written.insert(l);
                }
                LocalWrite::Unknown => return self.remember_stable(g, vec![]),
                LocalWrite::None => {}
            }
        }
        let v: Vec<LocalId> = b
            .params
            .iter()
            .copied()
            .filter(|p| !written.contains(p) && unaliased_pointer(&b, *p))
            .collect();
        self.remember_stable(g, v)
    }

    fn remember_stable(&mut self, g: FuncId, v: Vec<LocalId>) -> Vec<LocalId> {
        self.caches.stable_params.insert(g, v.clone());
        v
    }

    /// Locals of `g` that only ever hold a copy of a stable parameter (`void **pp = ptr;`,
    /// their one write): inside a call they are bound to the same argument. Reading one
    /// before that write would read an uninitialised variable.
    fn stable_copies(&mut self, g: FuncId) -> Vec<(LocalId, LocalId)> {
        if let Some(v) = self.caches.stable_copies.get(&g) {
            return v.clone();
        }
        let stable = self.stable_params(g);
        let b = self.body(g);
        let mut writes: FxHashMap<LocalId, u32> = FxHashMap::default();
        let mut copy_of: FxHashMap<LocalId, LocalId> = FxHashMap::default();
        for id in b.node_ids() {
            let addr = match &b.node(id).stmt.kind {
                StmtKind::Assign { addr, value } => {
                    if let crate::ir::ExprKind::Addr(crate::ir::Symbol::Local(c)) =
                        b.exprs.kind(*addr)
                        && let crate::ir::ExprKind::Deref(a) = b.exprs.kind(*value)
                        && let crate::ir::ExprKind::Addr(crate::ir::Symbol::Local(p)) =
                            b.exprs.kind(*a)
                        && stable.contains(p)
                    {
                        copy_of.insert(*c, *p);
                    }
                    *addr
                }
                StmtKind::Alloc { addr, .. } => *addr,
                StmtKind::Call { dest: Some(d), .. } => *d,
                StmtKind::Opaque { .. } => {
                    self.caches.stable_copies.insert(g, vec![]);
                    return vec![];
                }
                _ => continue,
            };
            if let Some(l) = crate::probe::sites::written_local(&b, addr) {
                *writes.entry(l).or_default() += 1;
            }
        }
        let mut v: Vec<(LocalId, LocalId)> = copy_of
            .into_iter()
            .filter(|(c, _)| {
                writes.get(c) == Some(&1)
                    && b.local(*c).kind == crate::ir::LocalKind::Local
                    && unaliased_pointer(&b, *c)
            })
            .collect();
        v.sort();
        self.caches.stable_copies.insert(g, v.clone());
        v
    }

    /// Expression `x` of `f` with the parameter bindings of context `ctx` applied: the
    /// stable ones everywhere, the early ones at a statement (`Cursor::at`) before which the
    /// parameter has not been assigned.
    pub(super) fn bind(&mut self, f: FuncId, ctx: Ctx, x: E) -> E {
        let Some(b) = self.contexts.bindings.get(&ctx) else {
            return x;
        };
        if b.callee != f {
            return x;
        }
        let mask = match (&b.entry, self.cursor.at) {
            (Some(ep), Some((af, an))) if af == f && !b.early.is_empty() => {
                ep.before.get(an.0 as usize).copied().unwrap_or(0)
            }
            _ => 0,
        };
        let early: u64 = b.early.iter().fold(0, |m, (_, bit, _)| m | bit) & mask;
        if b.params.is_empty() && early == 0 {
            return x;
        }
        if let Some(&y) = self.contexts.bound_cache.get(&(ctx, x, early)) {
            return y;
        }
        let mut binds = b.params.clone();
        binds.extend(
            b.early
                .iter()
                .filter(|(_, bit, _)| early & bit != 0)
                .map(|(p, _, a)| (*p, *a)),
        );
        let mut y = x;
        for (p, actual) in binds {
            let pv = self.local_addr(f, p);
            let pv = self.arena.deref(pv);
            if self.arena.contains(y, pv) {
                y = self.arena.substitute(y, pv, actual);
            }
        }
        self.contexts.bound_cache.insert((ctx, x, early), y);
        y
    }

    /// The pointer parameters `g` assigns somewhere (address never taken; at most 64) and,
    /// per statement, those no path from the entry has assigned yet: a forward must-analysis
    /// over the CFG. A statement the front end could not model assigns them all.
    pub(super) fn entry_value_params(&mut self, g: FuncId) -> Arc<EntryParams> {
        if let Some(e) = self.caches.entry_params.get(&g) {
            return e.clone();
        }
        let b = self.body(g);
        let stable = self.stable_params(g);
        let params: Vec<LocalId> = b
            .params
            .iter()
            .copied()
            .filter(|p| !stable.contains(p) && unaliased_pointer(&b, *p))
            .take(64)
            .collect();
        let n = b.nodes.len();
        let mut out = EntryParams {
            params: params.clone(),
            before: vec![0; n],
        };
        if !params.is_empty() {
            let bit = |l: LocalId| -> u64 {
                params.iter().position(|p| *p == l).map_or(0, |i| 1u64 << i)
            };
            let all: u64 = if params.len() >= 64 {
                u64::MAX
            } else {
                (1u64 << params.len()) - 1
            };
            let mut kill = vec![0u64; n];
            for id in b.node_ids() {
                kill[id.0 as usize] = match local_write(&b, id) {
                    LocalWrite::Local(l) => bit(l),
                    LocalWrite::Unknown => all,
                    LocalWrite::None => 0,
                };
            }
            if let Some(before) =
                crate::probe::sites::must_forward(&b, all, all, |v, p| v & !kill[p])
            {
                out.before = before;
            }
        }
        let out = Arc::new(out);
        self.caches.entry_params.insert(g, out.clone());
        out
    }

    /// An expression whose value cannot change while a callee runs: numbers, addresses, and
    /// reads of frozen (caller-frame) variables whose address is not taken.
    fn frame_stable(&mut self, e: E) -> bool {
        match *self.arena.kind(e) {
            EKind::Int(_) | EKind::Num => true,
            EKind::Addr(Sym::Frozen(..))
            | EKind::Addr(Sym::Global(_))
            | EKind::Addr(Sym::Function(_)) => true,
            EKind::Addr(_) => false,
            EKind::Deref(x) => {
                matches!(self.arena.kind(x), EKind::Addr(Sym::Frozen(..))) && {
                    let p = self.arena.pt(x);
                    !p.all_memory && p.iter().all(|r| r.is_var())
                }
            }
            // The address of a member of a stable object (`&hook->hooks` of a frozen `hook`).
            EKind::Field(b, _) => {
                matches!(self.arena.kind(b), EKind::Addr(Sym::Frozen(..))) || self.frame_stable(b)
            }
            EKind::Bin(_, l, r) => self.frame_stable(l) && self.frame_stable(r),
            EKind::Unknown => false,
        }
    }

    /// An argument that reads only caller variables the callee `g` may not write (its MOD
    /// regions, transitively; the same reasoning that applies a call through its summary)
    /// keeps its value while the call runs: `&tail->entry` of a caller's `tail` whose address
    /// `posix_memalign` took, handed to a list insert that writes only list links. Not an
    /// argument that reads memory (`&parser->document->nodes.start`): bound, its callee's
    /// writes through it are tracked as writes of that location, and a growing stack then
    /// leaves the facts weaker than the unbound walk (libyaml's `PUSH`).
    fn unwritten_by(&mut self, e: E, g: FuncId) -> bool {
        if crate::probe::state::mentions_unknown_value(&self.arena, e) {
            return false;
        }
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.arena.mems(e, &mut mems);
        let frozen_vars = mems.iter().all(|m| match *self.arena.kind(*m) {
            EKind::Deref(x) => matches!(self.arena.kind(x), EKind::Addr(Sym::Frozen(..))),
            _ => true,
        });
        if !frozen_vars {
            return false;
        }
        let Some(w) = self.mod_regions(g) else {
            return false;
        };
        let r = self.arena.reads(e);
        !r.all_memory && !r.intersects(&w)
    }

    /// Rename every symbol of a fact; expressions (and constraints) whose rename is `None`
    /// are dropped, which only loses information.
    pub(super) fn rename_fact(&mut self, d: &Fact, f: &dyn Fn(Sym) -> Option<Sym>) -> Fact {
        let mut out = Fact {
            regions: RegionSet::empty(),
            hits: SmallVec::new(),
            misses: SmallVec::new(),
            constraints: SmallVec::new(),
            tags: SmallVec::new(),
            relations: SmallVec::new(),
            tainted: d.tainted,
            assumed: d.assumed,
            unknown_top: RegionSet::empty(),
            unknown_drop: d.unknown_drop,
        };
        for r in &d.relations {
            if let (Some(l), Some(x)) = (self.arena.rename(r.l, f), self.arena.rename(r.r, f)) {
                out.relations.push(PtrRel::new(l, x, r.eq));
            }
        }
        for &e in &d.hits {
            if let Some(x) = self.arena.rename(e, f) {
                out.hits.push(x);
            }
        }
        for &e in &d.misses {
            if let Some(x) = self.arena.rename(e, f) {
                out.misses.push(x);
            }
        }
        for c in &d.constraints {
            if let Some(x) = self.arena.rename(c.e, f) {
                out.constraints.push(Constraint { e: x, ..*c });
            }
        }
        out.regions.all_memory = d.regions.all_memory;
        for r in d.regions.iter() {
            if let Some(r2) = self.rename_region(r, f) {
                out.regions.insert(r2);
            }
        }
        // A tag whose location cannot be renamed leaves its region ⊤.
        let mut top: SmallVec<[Region; 2]> = SmallVec::new();
        for &(r, x) in &d.tags {
            let Some(r2) = self.rename_region(r, f) else {
                continue;
            };
            match self.arena.rename(x, f) {
                Some(x2) => out.tags.push((r2, x2)),
                None => top.push(r2),
            }
        }
        out.tags.retain(|(r, _)| !top.contains(r));
        for r in d.unknown_top.iter() {
            if let Some(r2) = self.rename_region(r, f) {
                out.unknown_top.insert(r2);
            }
        }
        out.normalize();
        out
    }

    /// A variable's region follows its variable's rename (`None`: the variable is gone).
    fn rename_region(&mut self, r: Region, f: &dyn Fn(Sym) -> Option<Sym>) -> Option<Region> {
        let Region::Var(i) = r else {
            return Some(r);
        };
        let path = self.arena.names.var_path(i).clone();
        let sym = match path.root {
            VarRoot::Local(func, l) => Some(Sym::Local(func, l)),
            VarRoot::Frozen(depth, func, l) => Some(Sym::Frozen(depth, func, l)),
            _ => None,
        };
        let root = match sym.map(f) {
            None => path.root.clone(),
            Some(Some(Sym::Local(func, l))) => VarRoot::Local(func, l),
            Some(Some(Sym::Frozen(depth, func, l))) => VarRoot::Frozen(depth, func, l),
            Some(None) | Some(Some(_)) => return None,
        };
        Some(self.arena.names.var(crate::regions::VarPath {
            root,
            fields: path.fields.clone(),
        }))
    }

    /// Move a fact (already past M2/M3) into callee `g`'s exit. Instead of removing the
    /// caller's locals (the paper's Remove Info), rename them to frozen symbols one frame up:
    /// the callee cannot assign them, so everything known about them survives the call.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter_callee(
        &mut self,
        caller: FuncId,
        call_node: NodeId,
        caller_ctx: Ctx,
        d: Fact,
        g: FuncId,
        caller_slot: Option<SlotId>,
        probe_start: bool,
        frames: Frames,
    ) -> bool {
        let gb = self.body(g);
        let ret = gb.ret;
        let shift_in = move |s: Sym| -> Option<Sym> {
            match s {
                Sym::Local(f, l) if f == caller => Some(Sym::Frozen(1, f, l)),
                // The callee's `ret` of a recursive call (see `at_call`).
                Sym::Frozen(0, f, l) if f == g && Some(l) == ret => Some(Sym::Local(f, l)),
                Sym::Frozen(ANCESTOR, ..) => Some(s),
                Sym::Frozen(depth, f, l) => {
                    (depth < MAX_FROZEN_DEPTH).then_some(Sym::Frozen(depth + 1, f, l))
                }
                Sym::Shadow(_) => None,
                other => Some(other),
            }
        };
        let mut mapped = self.rename_fact(&d, &shift_in);
        mapped.normalize();
        // Parameters the callee never assigns keep the caller's (frame-stable) argument.
        let mut binds: Vec<(LocalId, E)> = Vec::new();
        let stable = self.stable_params(g);
        if !stable.is_empty() {
            let cb = self.body(caller);
            if let StmtKind::Call { args, .. } = &cb.node(call_node).stmt.kind {
                let args = args.clone();
                let owned = self.owned_by_caller(caller, call_node, caller_ctx, g, &shift_in);
                for p in stable {
                    let Some(i) = gb.params.iter().position(|x| *x == p) else {
                        continue;
                    };
                    let Some(a) = args.get(i) else { continue };
                    let actual = self.tr_in(caller, caller_ctx, *a);
                    if let Some(shifted) = self.arena.rename(actual, &shift_in)
                        && (self.frame_stable(shifted)
                            || owned.is_some_and(|o| self.field_of(shifted, o))
                            || self.unwritten_by(shifted, g))
                    {
                        binds.push((p, shifted));
                    }
                }
            }
        }
        // Parameters the callee assigns later keep the argument until then.
        let mut early: Vec<(LocalId, u64, E)> = Vec::new();
        let entry = self.entry_value_params(g);
        if !entry.params.is_empty() {
            let cb = self.body(caller);
            if let StmtKind::Call { args, .. } = &cb.node(call_node).stmt.kind {
                let args = args.clone();
                for (k, p) in entry.params.iter().enumerate() {
                    let Some(i) = gb.params.iter().position(|x| x == p) else {
                        continue;
                    };
                    let Some(a) = args.get(i) else { continue };
                    let actual = self.tr_in(caller, caller_ctx, *a);
                    if let Some(shifted) = self.arena.rename(actual, &shift_in)
                        && (self.frame_stable(shifted) || self.unwritten_by(shifted, g))
                    {
                        early.push((*p, 1u64 << k, shifted));
                    }
                }
            }
        }
        for (c, p) in self.stable_copies(g) {
            let Some(&(_, a)) = binds.iter().find(|(q, _)| *q == p) else {
                continue;
            };
            // A copy that converts a generic pointer to a typed one (`struct s *s = p;` of
            // a `void *`) keeps its own reads: bound, they would lose the type.
            let generic = |t: &Type| {
                t.pointee().is_none_or(|x| {
                    crate::regions::is_generic_pointee(&self.arena.env().resolve(x))
                })
            };
            let copy_ty = gb.local(c).ty.clone();
            if generic(self.arena.ty(a)) && !generic(&copy_ty) {
                continue;
            }
            binds.push((c, a));
        }
        let mut ancestor = None;
        let compress = frames != Frames::Exact;
        if compress {
            (mapped, binds, ancestor) = self.compress_frames(&mapped, binds);
            early.clear();
        }
        let link = self.chain_link(caller, call_node, caller_ctx, g);
        // A compressed context is found by its fact without the region set: a deeper call
        // that reaches it with more regions joins them into its exit fact (a weaker fact,
        // whose entry facts reach every caller registered so far).
        let mut key_fact = mapped.clone();
        if compress {
            key_fact.regions = RegionSet::empty();
        }
        let key = ContextKey {
            callee: g,
            fact: key_fact,
            witness: self.cursor.witness.is_some(),
            bindings: binds
                .iter()
                .copied()
                .chain(early.iter().map(|(p, _, a)| (*p, *a)))
                .collect(),
            chain: link.is_some(),
        };
        let ctx = match self.contexts.keys.get(&key) {
            Some(c) => *c,
            None if frames == Frames::CompressReuse => return false,
            None => {
                let c = self.contexts.next;
                self.contexts.next = Ctx(c.0 + 1);
                self.contexts.keys.insert(key, c);
                let depth = self.contexts.depth.get(&caller_ctx).copied().unwrap_or(0) + 1;
                self.contexts.depth.insert(c, depth);
                if !binds.is_empty() || !early.is_empty() {
                    self.contexts.bindings.insert(
                        c,
                        Bindings {
                            callee: g,
                            params: binds,
                            entry: (!early.is_empty()).then_some(entry),
                            early,
                        },
                    );
                }
                if let Some(l) = link {
                    self.contexts.chains.insert(c, l);
                }
                c
            }
        };
        let reg = Registration {
            func: caller,
            node: call_node,
            ctx: caller_ctx,
            caller_slot,
            ancestor,
        };
        self.contexts
            .registrations
            .entry((g, ctx))
            .or_default()
            .push(reg.clone());
        let prov = if probe_start {
            Prov::StartInCallee
        } else {
            Prov::Map(caller_slot.unwrap_or(0))
        };
        let exit = gb.exit;
        self.insert(g, exit, ctx, mapped, prov);
        // A summary already computed for this context answers right away.
        if let Some(entries) = self.contexts.summaries.get(&(g, ctx)).cloned() {
            // Each entry fact goes on as what it is: a witness's as that witness (so that
            // `refute` ignores its dead paths and `insert` keeps it apart), the cell's as
            // the cell's, whichever fact made this call.
            let saved = self.cursor.witness;
            for entry in entries {
                let f = self.worklist.slots[entry as usize].fact.clone();
                self.cursor.witness = self.worklist.slots[entry as usize].witness_of;
                self.unmap_to(&f, g, entry, &reg);
            }
            self.cursor.witness = saved;
        }
        true
    }

    /// Unmap (Figure 5) a callee-entry fact to one registered call site and continue there.
    pub(super) fn unmap_to(&mut self, d: &Fact, g: FuncId, entry_slot: SlotId, reg: &Registration) {
        let saved_ctx = self.cursor.ctx;
        let g_ctx = self.worklist.slots[entry_slot as usize].ctx;
        let r = self.unmap(
            d,
            g,
            g_ctx,
            reg.func,
            reg.node,
            Some((reg.ctx, reg.ancestor)),
        );
        self.cursor.ctx = saved_ctx;
        let Some(mut f) = r else {
            let why = format!(
                "contradiction on return to the call of `{}`",
                self.prog.function_name(g)
            );
            self.refute(reg.func, reg.node, why);
            return;
        };
        f.normalize();
        let prov = Prov::Unmap {
            entry: entry_slot,
            call_node: reg.node,
            caller: reg.caller_slot,
        };
        self.insert_preds(reg.func, reg.node, reg.ctx, f, prov);
    }

    /// formal ← shadow; scope(formals); (frozen caller locals back to locals); shadow ← actual.
    /// `back`: the fact leaves callee context `g_ctx` for caller context `.0`, and the frozen
    /// frames move back (`.1`: the caller frame `ANCESTOR` stands for, see `Registration`);
    /// `None` at the entry of a base frame, whose caller has no frozen frames.
    pub(super) fn unmap(
        &mut self,
        d: &Fact,
        g: FuncId,
        g_ctx: Ctx,
        caller: FuncId,
        call_node: NodeId,
        back: Option<(Ctx, Option<u8>)>,
    ) -> Option<Fact> {
        self.cursor.ctx = g_ctx;
        let gb = self.body(g);
        let cb = self.body(caller);
        let args = match &cb.node(call_node).stmt.kind {
            StmtKind::Call { args, .. } => args.clone(),
            _ => return Some(d.clone()),
        };
        let mut cur = d.clone();
        let params = gb.params.clone();
        let mut shadows = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let ty = gb.local(*p).ty.clone();
            let sh = self.arena.mk(
                EKind::Addr(Sym::Shadow(i as u32)),
                &Type::pointer_to(ty.clone()),
            );
            shadows.push(sh);
        }
        // In execution order each shadow dies right after `formal ← shadow`: its region may
        // hold the pointer there (nullification, backward).
        for sh in &shadows {
            let w = self.arena.pt(*sh);
            let loc = self.arena.deref(*sh);
            self.grow_s(&mut cur, &w, Some(loc));
        }
        for (i, p) in params.iter().enumerate() {
            let sh = shadows[i];
            let pa = self.local_addr(g, *p);
            let sv = self.arena.deref(sh);
            cur = self.assign_param(&cur, pa, sv, 0)?;
        }
        cur = self.scope_begin(&cur, g, &params)?;
        if let Some((caller_ctx, ancestor)) = back {
            self.cursor.ctx = caller_ctx;
            let out = |s: Sym| -> Option<Sym> {
                match s {
                    Sym::Frozen(ANCESTOR, f, l) => match ancestor {
                        Some(depth) => Some(Sym::Frozen(depth, f, l)),
                        None => Some(s),
                    },
                    Sym::Frozen(1, f, l) => Some(Sym::Local(f, l)),
                    Sym::Frozen(depth, f, l) => Some(Sym::Frozen(depth - 1, f, l)),
                    other => Some(other),
                }
            };
            cur = self.rename_fact(&cur, &out);
            if infeasible(&mut self.arena, &cur) {
                return None;
            }
        }
        for (i, sh) in shadows.iter().enumerate() {
            let actual = match args.get(i) {
                Some(a) => self.tr(caller, *a),
                None => self.arena.mk(EKind::Unknown, &Type::Unknown),
            };
            cur = self.assign_param(&cur, *sh, actual, 0)?;
        }
        // Extra (variadic) arguments: the callee may keep them.
        for a in args.iter().skip(params.len()) {
            let ae = self.tr(caller, *a);
            if cur.hits.iter().any(|h| self.arena.contains(*h, ae)) {
                return None;
            }
        }
        cur.normalize();
        self.finish_fact(cur)
    }

    /// `*dst ← v` for a parameter passed by value: member by member when it is a struct
    /// whose value is read from a location (`*src`), so that what the fact says of one
    /// member (`e.tag` stored by the callee) moves to that member of the argument; one
    /// assignment otherwise. The members are `assign_copy`'s (`copied_members`), without its case
    /// splits.
    fn assign_param(&mut self, d: &Fact, dst: E, v: E, depth: u32) -> Option<Fact> {
        let (Some(members), EKind::Deref(src)) =
            (self.copied_members(dst, depth), *self.arena.kind(v))
        else {
            return self.assign(d, dst, v);
        };
        let mut cur = d.clone();
        for name in members.iter().rev() {
            let da = self.field_addr(dst, name);
            let sa = self.field_addr(src, name);
            let sv = self.arena.deref(sa);
            cur = self.assign_param(&cur, da, sv, depth + 1)?;
        }
        Some(cur)
    }
}
