//! "Could the memory assigned here leak?": the forward half of the question a user asks at an
//! assignment or allocation.
//!
//! The probe at an assignment asks about the value the assignment *overwrites*. The user who
//! points at `p = malloc(n)` usually means the block that `p` *receives*. That block can only
//! lose its last reference at a probe point (every loss of a pointer is probed), so the answer
//! is: follow the value forward from the assignment over the function's CFG (which locals hold
//! it at each point), collect the statements where a holder is lost — each one a probe whose
//! backward exploration can reach the assignment — and the statements that dispose of the value
//! otherwise (freed, returned, stored into memory, passed to a callee, NULL on this path). The
//! host then reads each of those probes' verdicts: the engine, not this pass, decides whether the
//! block leaks there.
//!
//! The flow is path-sensitive in a small way: a state is one set of holders that all hold the
//! value on the paths it stands for, so `cond(p == 0)` on a holder ends the path (the value is
//! NULL: there is no block to lose). Too many distinct states at a node are merged into one
//! "may" state, where such pruning is no longer sound and is not done.

use super::{ProbeSite, Root, Start, Subject};
use crate::ir::{BinOp, CmpOp, Symbol, TypeEnv};
use crate::ir::{Callee, ExprId, ExprKind, FunctionIr, LocalId, LocalKind, NodeId, StmtKind};
use std::collections::BTreeSet;

/// A location of the function that can hold the value: a local and a field path (`s.buf`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Holder {
    pub local: LocalId,
    pub fields: Vec<String>,
}

/// What happens to the assigned value at a statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Event {
    /// Probe `probe` (an index into the function's probes) loses `holder` here: its verdict
    /// says whether the block can leak there.
    Lost { probe: usize, holder: String },
    /// `holder` is lost here but no probe sits on it (a location the probes do not cover).
    LostUnprobed { holder: String },
    /// Parameter `holder` goes out of scope unprobed: the caller passed the value and still
    /// holds it (its own probes decide).
    CallerHolds { holder: String },
    /// `free(holder)`: the block is gone on this path.
    Freed { holder: String },
    /// The value becomes the function's result (the callers' probes decide its fate).
    Returned { holder: String },
    /// The value is stored into memory `into` (the probes of that location decide).
    Stored { into: String, holder: String },
    /// The value is passed to `callee` (which may keep or free it; the probes after the call
    /// account for what it does).
    Passed { callee: String, holder: String },
    /// The address of a holder is passed to `callee`, which may change it.
    AddressPassed { callee: String, holder: String },
    /// `holder` is NULL on this path: there is no block to lose.
    Null { holder: String },
    /// Code the front end did not understand reads the value.
    Opaque { reason: String },
    /// The value assigned is no heap block (`NULL`, the address of a variable).
    NotHeap { what: String },
    /// The flow was cut short (too many steps): the list is incomplete.
    Incomplete,
}

/// Everything that happens to the value assigned at `site`, in node order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AssignedFlow {
    pub site: NodeId,
    /// The location written, as the user wrote it (`copy`, `pkt->buf`).
    pub target: String,
    pub events: Vec<(NodeId, Event)>,
}

/// Distinct holder sets kept per node before they are merged into one "may" state.
const MAX_STATES: usize = 16;
/// Node visits before the flow gives up (and says so).
const MAX_STEPS: usize = 100_000;

/// The nodes of `ir` that assign a data pointer: `*e ← v` with a pointer `v`, `*e ← alloc`,
/// `*e ← p(…)` with a pointer result.
pub fn assignment_sites(ir: &FunctionIr, env: &TypeEnv) -> Vec<NodeId> {
    ir.node_ids()
        .filter(|&n| match &ir.node(n).stmt.kind {
            StmtKind::Assign { addr, .. } => {
                writes_data_pointer(ir, env, *addr)
                    && !matches!(
                        written_kind(ir, *addr),
                        Some(LocalKind::Return | LocalKind::Temp)
                    )
            }
            StmtKind::Alloc { addr, .. }
            | StmtKind::Call {
                dest: Some(addr), ..
            } => {
                writes_data_pointer(ir, env, *addr)
                    && written_kind(ir, *addr) != Some(LocalKind::Return)
            }
            _ => false,
        })
        .collect()
}

/// The kind of the local an address writes, if it writes a local: `ret = p` (the lowering of
/// `return p`) and copies into temporaries are not assignments the user wrote.
fn written_kind(ir: &FunctionIr, addr: ExprId) -> Option<LocalKind> {
    local_place(ir, addr).map(|h| ir.local(h.local).kind)
}

fn writes_data_pointer(ir: &FunctionIr, env: &TypeEnv, addr: ExprId) -> bool {
    ir.exprs
        .ty(addr)
        .pointee()
        .is_some_and(|t| super::sites::holds_data_pointer(env, t))
}

/// Follows the value assigned at `site` forward. `None` when `site` is not an assignment of a
/// data pointer (see [`assignment_sites`]). `probes` are the function's probes, whose indices
/// [`Event::Lost`] refers to.
pub fn assigned_flow(
    ir: &FunctionIr,
    env: &TypeEnv,
    site: NodeId,
    probes: &[ProbeSite],
) -> Option<AssignedFlow> {
    if site.0 as usize >= ir.nodes.len() {
        return None;
    }
    let (dest, value) = match &ir.node(site).stmt.kind {
        StmtKind::Assign { addr, value } => (*addr, Some(*value)),
        StmtKind::Alloc { addr, .. } => (*addr, None),
        StmtKind::Call {
            dest: Some(addr), ..
        } => (*addr, None),
        _ => return None,
    };
    if !writes_data_pointer(ir, env, dest) {
        return None;
    }
    let mut by_node: rustc_hash::FxHashMap<NodeId, Vec<usize>> = Default::default();
    for (i, p) in probes.iter().enumerate() {
        by_node.entry(p.node).or_default().push(i);
    }
    let mut flow = Flow {
        ir,
        probes,
        by_node,
        events: BTreeSet::new(),
    };
    // `p = NULL`, `p = &x`, `p = "text"`: the value is no heap block.
    if let Some(v) = value
        && let Some(what) = not_heap(ir, v)
    {
        flow.events.insert((site, Event::NotHeap { what }));
        return Some(AssignedFlow {
            site,
            target: crate::ir::display_place(ir, dest),
            events: flow.events.into_iter().collect(),
        });
    }
    // The holders right after the site: the location written (if it is a local's), and for a
    // copy `p = q` the source, which still holds the value.
    let mut start = BTreeSet::new();
    if let Some(v) = value
        && let Some(h) = value_holder(ir, v)
    {
        start.insert(h);
    }
    match local_place(ir, dest) {
        Some(d) => {
            flow.assign_to(site, d.clone(), &mut start);
        }
        None => {
            flow.events.insert((
                site,
                Event::Stored {
                    into: crate::ir::display_place(ir, dest),
                    holder: crate::ir::display_place(ir, dest),
                },
            ));
        }
    }
    // A result nobody reads dies right after the site itself (`strdup(s);`).
    flow.die_after(site, &mut start);
    if !start.is_empty() {
        flow.run(
            site,
            State {
                holders: start,
                may: false,
            },
        );
    }
    Some(AssignedFlow {
        site,
        target: crate::ir::display_place(ir, dest),
        events: flow.events.into_iter().collect(),
    })
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct State {
    holders: BTreeSet<Holder>,
    /// Merged from several paths: a holder may not hold the value on every one of them.
    may: bool,
}

struct Flow<'a> {
    ir: &'a FunctionIr,
    probes: &'a [ProbeSite],
    /// The probes of each node (indices into `probes`).
    by_node: rustc_hash::FxHashMap<NodeId, Vec<usize>>,
    events: BTreeSet<(NodeId, Event)>,
}

impl Flow<'_> {
    fn name(&self, h: &Holder) -> String {
        let mut s = self.ir.local(h.local).name.clone();
        for f in &h.fields {
            s.push('.');
            s.push_str(f);
        }
        s
    }

    /// The states reaching each node, from `state` right after `site`.
    fn run(&mut self, site: NodeId, state: State) {
        let n = self.ir.nodes.len();
        let mut at: Vec<BTreeSet<State>> = vec![BTreeSet::new(); n];
        let mut work: Vec<NodeId> = Vec::new();
        for s in self.ir.node(site).succs.clone() {
            if merge_into(&mut at[s.0 as usize], state.clone()) {
                work.push(s);
            }
        }
        let mut steps = 0;
        while let Some(node) = work.pop() {
            steps += 1;
            if steps > MAX_STEPS {
                self.events.insert((site, Event::Incomplete));
                return;
            }
            let states: Vec<State> = at[node.0 as usize].iter().cloned().collect();
            for st in states {
                let Some(out) = self.transfer(node, st) else {
                    continue;
                };
                if out.holders.is_empty() {
                    continue;
                }
                for s in self.ir.node(node).succs.clone() {
                    if merge_into(&mut at[s.0 as usize], out.clone()) {
                        work.push(s);
                    }
                }
            }
        }
    }

    /// The probes at `node`, as indices into `probes`.
    fn at(&self, node: NodeId) -> impl Iterator<Item = usize> + '_ {
        self.by_node.get(&node).into_iter().flatten().copied()
    }

    /// A holder is lost at `node` (before it executes, or after for a dying temporary).
    fn lose(&mut self, node: NodeId, h: &Holder, start: Start) {
        let probe = self.at(node).find(|&i| {
            let p = &self.probes[i];
            p.start == start && probe_place(self.ir, p).as_ref() == Some(h)
        });
        let holder = self.name(h);
        let event = match probe {
            Some(probe) => Event::Lost { probe, holder },
            None => {
                match self.ir.local(h.local).kind {
                    // A temporary's death is probed where it dies, if anywhere.
                    LocalKind::Temp | LocalKind::Return => return,
                    // A parameter the function never assigns is not probed at its returns:
                    // the caller still holds what it passed (see `sites::probe_sites`).
                    LocalKind::Param => Event::CallerHolds { holder },
                    LocalKind::Local => Event::LostUnprobed { holder },
                }
            }
        };
        self.events.insert((node, event));
    }

    /// `d` receives the value at `node`.
    fn assign_to(&mut self, node: NodeId, d: Holder, holders: &mut BTreeSet<Holder>) {
        if self.ir.local(d.local).kind == LocalKind::Return {
            let holder = self.name(&d);
            self.events.insert((node, Event::Returned { holder }));
        }
        holders.insert(d);
    }

    /// Overwrites `d` at `node`: every holder at or under `d` is lost (a probe decides).
    fn overwrite(&mut self, node: NodeId, d: &Holder, holders: &mut BTreeSet<Holder>) {
        let hit: Vec<Holder> = holders
            .iter()
            .filter(|h| h.local == d.local && h.fields.starts_with(&d.fields))
            .cloned()
            .collect();
        for h in hit {
            self.lose(node, &h, Start::Before);
            holders.remove(&h);
        }
    }

    fn transfer(&mut self, node: NodeId, st: State) -> Option<State> {
        let ir = self.ir;
        let State { mut holders, may } = st;
        match &ir.node(node).stmt.kind {
            // The `memset` call before it says what happens to the pointers it is given.
            StmtKind::Enter | StmtKind::Nop | StmtKind::ZeroFill { .. } => {}
            StmtKind::Return { .. } => return None,
            StmtKind::Assign { addr, value } => {
                let v = holds(ir, *value, &holders);
                match local_place(ir, *addr) {
                    Some(d) => {
                        if v.as_ref() != Some(&d) {
                            self.overwrite(node, &d, &mut holders);
                        }
                        if v.is_some() {
                            self.assign_to(node, d, &mut holders);
                        }
                    }
                    None => {
                        if let Some(h) = v {
                            let (into, holder) =
                                (crate::ir::display_place(ir, *addr), self.name(&h));
                            self.events.insert((node, Event::Stored { into, holder }));
                        }
                    }
                }
            }
            StmtKind::Alloc { addr, .. } => {
                if let Some(d) = local_place(ir, *addr) {
                    self.overwrite(node, &d, &mut holders);
                }
            }
            StmtKind::Call { dest, callee, args } => {
                let callee_name = match callee {
                    Callee::Direct(n) => format!("`{n}`"),
                    Callee::Indirect(_) => "a function pointer".to_string(),
                };
                for a in args {
                    if let Some(h) = holds(ir, *a, &holders) {
                        let holder = self.name(&h);
                        self.events.insert((
                            node,
                            Event::Passed {
                                callee: callee_name.clone(),
                                holder,
                            },
                        ));
                    } else if let Some(h) = local_place(ir, *a)
                        && let Some(held) = holders.iter().find(|x| x.local == h.local)
                    {
                        let holder = self.name(held);
                        self.events.insert((
                            node,
                            Event::AddressPassed {
                                callee: callee_name.clone(),
                                holder,
                            },
                        ));
                    }
                }
                if let Some(d) = dest.and_then(|d| local_place(ir, d)) {
                    self.overwrite(node, &d, &mut holders);
                }
            }
            StmtKind::Free { ptr } => {
                if let Some(h) = holds(ir, *ptr, &holders) {
                    let holder = self.name(&h);
                    self.events.insert((node, Event::Freed { holder }));
                    if !may {
                        return None;
                    }
                    holders.remove(&h);
                }
            }
            StmtKind::Cond { lhs, op, rhs } => {
                let null = |e: ExprId| matches!(ir.exprs.kind(e), ExprKind::Int(0));
                let tested = if null(*rhs) {
                    holds(ir, *lhs, &holders)
                } else if null(*lhs) {
                    holds(ir, *rhs, &holders)
                } else {
                    None
                };
                if let Some(h) = tested
                    && *op == CmpOp::Eq
                    && !may
                {
                    let holder = self.name(&h);
                    self.events.insert((node, Event::Null { holder }));
                    return None;
                }
            }
            StmtKind::ScopeBegin { locals } => {
                holders.retain(|h| !locals.contains(&h.local));
            }
            StmtKind::ScopeEnd { locals, .. } => {
                // In the statement's order: the probe of each local knows the ones before it.
                for l in locals {
                    let gone: Vec<Holder> =
                        holders.iter().filter(|h| h.local == *l).cloned().collect();
                    for h in gone {
                        self.lose(node, &h, Start::Before);
                        holders.remove(&h);
                    }
                }
            }
            StmtKind::Opaque { reason, reads } => {
                if reads.iter().any(|r| mentions(ir, *r, &holders)) {
                    self.events.insert((
                        node,
                        Event::Opaque {
                            reason: reason.clone(),
                        },
                    ));
                }
            }
        }
        self.die_after(node, &mut holders);
        Some(State { holders, may })
    }

    /// Temporaries whose value dies right after `node` (their probes start after it).
    fn die_after(&mut self, node: NodeId, holders: &mut BTreeSet<Holder>) {
        let ir = self.ir;
        let dying: Vec<Holder> = holders
            .iter()
            .filter(|h| {
                self.at(node).any(|i| {
                    let p = &self.probes[i];
                    p.start == Start::After && probe_place(ir, p).as_ref() == Some(*h)
                })
            })
            .cloned()
            .collect();
        for h in dying {
            self.lose(node, &h, Start::After);
            holders.remove(&h);
        }
    }
}

/// Adds `s` to the states of a node; more than [`MAX_STATES`] are merged into one "may" state.
/// Whether anything changed.
fn merge_into(set: &mut BTreeSet<State>, s: State) -> bool {
    if set.contains(&s) {
        return false;
    }
    if let Some(merged) = set.iter().find(|x| x.may).cloned() {
        // Already merged: grow the one state.
        let mut m = merged.clone();
        m.holders.extend(s.holders);
        if m == merged {
            return false;
        }
        set.remove(&merged);
        set.insert(m);
        return true;
    }
    set.insert(s);
    if set.len() > MAX_STATES {
        let mut holders = BTreeSet::new();
        for x in std::mem::take(set) {
            holders.extend(x.holders);
        }
        set.insert(State { holders, may: true });
    }
    true
}

/// What a value that can never be a heap block is (`NULL`, the address of `x`), if it is one.
fn not_heap(ir: &FunctionIr, e: ExprId) -> Option<String> {
    match ir.exprs.kind(e) {
        ExprKind::Int(0) => Some("NULL".into()),
        ExprKind::Int(_) | ExprKind::Scalar => Some("a number".into()),
        ExprKind::Addr(Symbol::StringLit(_)) => Some("a string literal".into()),
        ExprKind::Addr(Symbol::Function(f)) => Some(format!("the function `{f}`")),
        ExprKind::Addr(_) | ExprKind::Field(..) => Some(format!(
            "the address `{}`",
            crate::ir::display_expr(ir, e, crate::ir::Notation::C)
        )),
        _ => None,
    }
}

/// The local location an address names: `&x` → `x`, `&x.f` → `x.f`.
fn local_place(ir: &FunctionIr, e: ExprId) -> Option<Holder> {
    match ir.exprs.kind(e) {
        ExprKind::Addr(Symbol::Local(l)) => Some(Holder {
            local: *l,
            fields: vec![],
        }),
        ExprKind::Field(b, f) => {
            let mut h = local_place(ir, *b)?;
            h.fields.push(f.clone());
            Some(h)
        }
        _ => None,
    }
}

/// The holder a value expression reads, if it reads one (`q` in `p = q`).
fn value_holder(ir: &FunctionIr, e: ExprId) -> Option<Holder> {
    match ir.exprs.kind(e) {
        ExprKind::Deref(a) => local_place(ir, *a),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, l, _) if ir.exprs.ty(e).is_pointer() => {
            value_holder(ir, *l)
        }
        _ => None,
    }
}

/// The holder in `holders` whose value `e` yields (or an address inside its block: pointer
/// arithmetic keeps the block).
fn holds(ir: &FunctionIr, e: ExprId, holders: &BTreeSet<Holder>) -> Option<Holder> {
    match ir.exprs.kind(e) {
        ExprKind::Deref(a) => local_place(ir, *a).filter(|h| holders.contains(h)),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, l, r) if !ir.exprs.ty(e).is_scalar_number() => {
            holds(ir, *l, holders).or_else(|| holds(ir, *r, holders))
        }
        _ => None,
    }
}

/// Whether `e` reads a holder anywhere inside it.
fn mentions(ir: &FunctionIr, e: ExprId, holders: &BTreeSet<Holder>) -> bool {
    match ir.exprs.kind(e) {
        ExprKind::Deref(a) => {
            local_place(ir, *a).is_some_and(|h| holders.iter().any(|x| x.local == h.local))
                || mentions(ir, *a, holders)
        }
        ExprKind::Addr(Symbol::Local(l)) => holders.iter().any(|x| x.local == *l),
        ExprKind::Field(b, _) => mentions(ir, *b, holders),
        ExprKind::Binary(_, l, r) => mentions(ir, *l, holders) || mentions(ir, *r, holders),
        _ => false,
    }
}

/// The local location a probe is about, if it is one.
fn probe_place(ir: &FunctionIr, p: &ProbeSite) -> Option<Holder> {
    match &p.subject {
        Subject::Location { place, .. } => {
            let mut h = match &place.root {
                Root::Addr(a) => local_place(ir, *a)?,
                Root::Local(l) => Holder {
                    local: *l,
                    fields: vec![],
                },
                Root::PointedBy(_) => return None,
            };
            h.fields.extend(place.fields.iter().cloned());
            Some(h)
        }
        Subject::CallResult { dest: Some(d) } => local_place(ir, *d),
        Subject::CallResult { dest: None } => None,
    }
}

#[cfg(test)]
mod tests;
