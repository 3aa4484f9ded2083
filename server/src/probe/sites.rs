//! Leak probing points (§4.5), restricted to pointer-typed locations, plus block scope ends.

use super::{Place, ProbeKind, ProbeSite, Root, Start, Subject};
use crate::ir::{
    Callee, Expr, ExprId, ExprKind, FunctionIr, LocalId, LocalKind, NodeId, Notation, ScopeEndKind,
    StmtKind, Symbol, Type, TypeEnv, display_expr,
};
use rustc_hash::FxHashMap;

/// Every probe of a function. `has_body(name)` tells whether a direct callee can be analysed
/// (its result may then be fresh memory even if its type is not obviously a pointer).
/// `probe_parameters`: also probe, at the returns, parameters the function never assigns.
pub fn probe_sites(
    ir: &FunctionIr,
    env: &TypeEnv,
    has_body: &dyn Fn(&str) -> bool,
    probe_parameters: bool,
) -> Vec<ProbeSite> {
    let mut out = Vec::new();
    let reads = temp_reads(ir);
    let unassigned = if probe_parameters {
        Vec::new()
    } else {
        unassigned_params(ir)
    };
    for id in ir.node_ids() {
        let node = ir.node(id);
        let range = node.stmt.range;
        match &node.stmt.kind {
            StmtKind::Assign { addr, value } if probe_worthy(ir, *addr, env) => {
                out.push(ProbeSite {
                    node: id,
                    kind: ProbeKind::Assignment,
                    start: Start::Before,
                    subject: Subject::Location {
                        place: Place {
                            root: Root::Addr(*addr),
                            fields: vec![],
                        },
                        new_value: Some(*value),
                        prefix: vec![],
                    },
                    range,
                    variable: place_text(ir, *addr),
                });
            }
            StmtKind::Alloc { addr, .. } if probe_worthy(ir, *addr, env) => {
                out.push(ProbeSite {
                    node: id,
                    kind: ProbeKind::Allocation,
                    start: Start::Before,
                    subject: Subject::Location {
                        place: Place {
                            root: Root::Addr(*addr),
                            fields: vec![],
                        },
                        new_value: None,
                        prefix: vec![],
                    },
                    range,
                    variable: place_text(ir, *addr),
                });
            }
            StmtKind::Call { dest, callee, .. } => {
                let body = matches!(callee, Callee::Direct(n) if has_body(n));
                match dest {
                    Some(d) if probe_worthy(ir, *d, env) => out.push(ProbeSite {
                        node: id,
                        kind: ProbeKind::AssignedReturn,
                        start: Start::Before,
                        subject: Subject::CallResult { dest: Some(*d) },
                        range,
                        variable: place_text(ir, *d),
                    }),
                    None if body => {
                        let Callee::Direct(name) = callee else {
                            continue;
                        };
                        if env
                            .functions
                            .get(name)
                            .map(|s| holds_data_pointer(env, &s.ret))
                            .unwrap_or(false)
                        {
                            out.push(ProbeSite {
                                node: id,
                                kind: ProbeKind::IgnoredReturn,
                                start: Start::Before,
                                subject: Subject::CallResult { dest: None },
                                range,
                                variable: format!("{name}()"),
                            });
                        }
                    }
                    _ => {}
                }
            }
            StmtKind::Free { ptr } => {
                let pointee = env.resolve(ir.exprs.ty(*ptr).pointee().unwrap_or(&Type::Unknown));
                let Some(def) = env.struct_def(&pointee) else {
                    continue;
                };
                if def.is_union {
                    continue;
                }
                let mut fields: Vec<String> = Vec::new();
                for f in def.fields.iter().filter(|f| holds_data_pointer(env, &f.ty)) {
                    // Declared in two arms of an undecided `#if`: one member.
                    if !fields.contains(&f.name) {
                        fields.push(f.name.clone());
                    }
                }
                let base = display_expr(ir, *ptr, Notation::C);
                for (i, f) in fields.iter().enumerate() {
                    let prefix = fields[..i]
                        .iter()
                        .map(|g| Place {
                            root: Root::PointedBy(*ptr),
                            fields: vec![g.clone()],
                        })
                        .collect();
                    out.push(ProbeSite {
                        node: id,
                        kind: ProbeKind::FreeField,
                        start: Start::Before,
                        subject: Subject::Location {
                            place: Place {
                                root: Root::PointedBy(*ptr),
                                fields: vec![f.clone()],
                            },
                            new_value: None,
                            prefix,
                        },
                        range,
                        variable: format!("{base}->{f}"),
                    });
                }
            }
            StmtKind::ScopeEnd { locals, kind } => {
                let probe_kind = match kind {
                    ScopeEndKind::Return => ProbeKind::ReturnLocal,
                    ScopeEndKind::Block => ProbeKind::ScopeEnd,
                };
                // The places nullified by this statement, in execution order.
                let mut places: Vec<(Place, String)> = Vec::new();
                for l in locals {
                    let local = ir.local(*l);
                    if matches!(local.kind, LocalKind::Temp | LocalKind::Return) {
                        continue;
                    }
                    if local.kind == LocalKind::Param && unassigned.contains(l) {
                        // It still holds what the caller passed, and the caller still holds
                        // that value: losing it is the caller's loss, found by the caller's
                        // own probes (its variables' scope ends, the temporary of a call
                        // result passed directly).
                        continue;
                    }
                    if !mentioned(ir, *l) {
                        continue; // never used: it cannot hold anything
                    }
                    let ty = env.resolve(&local.ty);
                    if holds_data_pointer(env, &ty) {
                        places.push((
                            Place {
                                root: Root::Local(*l),
                                fields: vec![],
                            },
                            local.name.clone(),
                        ));
                    } else if let Some(def) = env.struct_def(&ty)
                        && !def.is_union
                    {
                        let mut seen: Vec<&str> = Vec::new();
                        for f in &def.fields {
                            // Declared in two arms of an undecided `#if`: one member.
                            if holds_data_pointer(env, &f.ty) && !seen.contains(&f.name.as_str()) {
                                seen.push(&f.name);
                                places.push((
                                    Place {
                                        root: Root::Local(*l),
                                        fields: vec![f.name.clone()],
                                    },
                                    format!("{}.{}", local.name, f.name),
                                ));
                            }
                        }
                    }
                }
                for (i, (place, name)) in places.iter().enumerate() {
                    out.push(ProbeSite {
                        node: id,
                        kind: probe_kind,
                        start: Start::Before,
                        subject: Subject::Location {
                            place: place.clone(),
                            new_value: None,
                            prefix: places[..i].iter().map(|p| p.0.clone()).collect(),
                        },
                        range,
                        variable: name.clone(),
                    });
                }
            }
            _ => {}
        }
    }
    // Temporaries holding call results: their value dies right after its single use (or right
    // away when nobody reads it).
    for (t, writers) in temp_writers(ir) {
        let local = ir.local(t);
        if !holds_data_pointer(env, &local.ty) {
            continue;
        }
        let fresh = writers.iter().any(|w| match &ir.node(*w).stmt.kind {
            StmtKind::Alloc { .. } => true,
            StmtKind::Call { callee, .. } => match callee {
                Callee::Direct(n) => has_body(n),
                Callee::Indirect(_) => false,
            },
            _ => false,
        });
        if !fresh {
            continue;
        }
        let after: Vec<_> = match reads.get(&t).map(|v| v.as_slice()) {
            None | Some([]) => writers.clone(),
            Some([one]) => vec![*one],
            Some(_) => continue,
        };
        for n in after {
            out.push(ProbeSite {
                node: n,
                kind: ProbeKind::IgnoredReturn,
                start: Start::After,
                subject: Subject::Location {
                    place: Place {
                        root: Root::Local(t),
                        fields: vec![],
                    },
                    new_value: None,
                    prefix: vec![],
                },
                range: ir.node(n).stmt.range,
                variable: local.name.clone(),
            });
        }
    }
    out
}

/// A location worth probing: pointer-typed, not an array element (the paper does not probe
/// those: without index reasoning they only produce false warnings), not a temporary, not `ret`.
fn probe_worthy(ir: &FunctionIr, addr: ExprId, env: &TypeEnv) -> bool {
    let Some(pointee) = ir.exprs.ty(addr).pointee() else {
        return false;
    };
    if !holds_data_pointer(env, pointee) {
        return false;
    }
    if let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(addr)
        && matches!(ir.local(*l).kind, LocalKind::Temp | LocalKind::Return)
    {
        return false;
    }
    !is_array_element(ir, addr)
}

/// A pointer that can reference a heap block: any pointer but a function pointer (code is
/// never heap memory, under the type-safety assumption).
pub(super) fn holds_data_pointer(env: &TypeEnv, ty: &Type) -> bool {
    let t = env.resolve(ty);
    t.is_pointer() && !matches!(t.pointee().map(|p| env.resolve(p)), Some(Type::Function(_)))
}

fn is_array_element(ir: &FunctionIr, addr: ExprId) -> bool {
    match ir.exprs.kind(addr) {
        ExprKind::Binary(..) => true,
        ExprKind::Field(b, _) => is_array_element(ir, *b),
        _ => false,
    }
}

fn place_text(ir: &FunctionIr, addr: ExprId) -> String {
    crate::ir::display_place(ir, addr)
}

fn local_addr(ir: &FunctionIr, l: LocalId) -> Option<ExprId> {
    let e = Expr {
        kind: ExprKind::Addr(Symbol::Local(l)),
        ty: Type::pointer_to(ir.local(l).ty.clone()),
    };
    ir.exprs.lookup(&e)
}

fn mentioned(ir: &FunctionIr, l: LocalId) -> bool {
    local_addr(ir, l).is_some()
}

/// Statements that read each temporary (a read is a `*&t` inside an operand).
fn temp_reads(ir: &FunctionIr) -> FxHashMap<LocalId, Vec<crate::ir::NodeId>> {
    let mut out: FxHashMap<LocalId, Vec<crate::ir::NodeId>> = FxHashMap::default();
    for id in ir.node_ids() {
        let mut operands: Vec<ExprId> = Vec::new();
        match &ir.node(id).stmt.kind {
            StmtKind::Assign { addr, value } => {
                operands.push(*value);
                operands.push(*addr);
            }
            StmtKind::Alloc { addr, .. } => operands.push(*addr),
            StmtKind::Free { ptr } => operands.push(*ptr),
            StmtKind::Cond { lhs, rhs, .. } => {
                operands.push(*lhs);
                operands.push(*rhs);
            }
            StmtKind::Call { dest, callee, args } => {
                operands.extend(args.iter().copied());
                if let Some(d) = dest {
                    operands.push(*d);
                }
                if let Callee::Indirect(f) = callee {
                    operands.push(*f);
                }
            }
            StmtKind::Return { value: Some(v) } => operands.push(*v),
            StmtKind::Opaque { reads, .. } => operands.extend(reads.iter().copied()),
            _ => {}
        }
        let mut seen = Vec::new();
        for op in operands {
            collect_temp_reads(ir, op, false, &mut seen);
        }
        seen.sort();
        seen.dedup();
        for t in seen {
            out.entry(t).or_default().push(id);
        }
    }
    out
}

fn collect_temp_reads(ir: &FunctionIr, e: ExprId, under_deref: bool, out: &mut Vec<LocalId>) {
    match ir.exprs.kind(e) {
        ExprKind::Addr(Symbol::Local(l)) if under_deref && ir.local(*l).kind == LocalKind::Temp => {
            out.push(*l);
        }
        ExprKind::Deref(a) => collect_temp_reads(ir, *a, true, out),
        ExprKind::Field(b, _) => collect_temp_reads(ir, *b, false, out),
        ExprKind::Binary(_, l, r) => {
            collect_temp_reads(ir, *l, false, out);
            collect_temp_reads(ir, *r, false, out);
        }
        _ => {}
    }
}

/// Statements that store into each temporary (as a destination).
fn temp_writers(ir: &FunctionIr) -> Vec<(LocalId, Vec<crate::ir::NodeId>)> {
    let mut out: FxHashMap<LocalId, Vec<crate::ir::NodeId>> = FxHashMap::default();
    for id in ir.node_ids() {
        let dest = match &ir.node(id).stmt.kind {
            StmtKind::Alloc { addr, .. } => Some(*addr),
            StmtKind::Call { dest: Some(d), .. } => Some(*d),
            StmtKind::Assign { addr, .. } => Some(*addr),
            _ => None,
        };
        if let Some(d) = dest
            && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(d)
            && ir.local(*l).kind == LocalKind::Temp
        {
            out.entry(*l).or_default().push(id);
        }
    }
    let mut v: Vec<_> = out.into_iter().collect();
    v.sort_by_key(|(l, _)| *l);
    // A temporary written by a plain assignment is a copy (postfix ++, `?:`), not a result.
    v.retain(|(_, ws)| {
        !ws.iter()
            .any(|w| matches!(ir.node(*w).stmt.kind, StmtKind::Assign { .. }))
    });
    v
}

/// The statements on a path to the function's normal exit, when a call for which `stops`
/// answers true (a callee that never returns) ends its path: `out[n]` is true when some path
/// from `n` reaches the exit without passing such a call (a stopping call itself is never on
/// one). `None` when the body has code the front end did not model: an opaque statement may
/// hide a `return`, so every statement must be taken to be on a returning path.
pub fn returning_nodes(
    ir: &FunctionIr,
    stops: &mut dyn FnMut(&Callee) -> bool,
) -> Option<Vec<bool>> {
    if !ir.fallbacks.is_empty()
        || ir
            .nodes
            .iter()
            .any(|n| matches!(n.stmt.kind, StmtKind::Opaque { .. }))
    {
        return None;
    }
    let n = ir.nodes.len();
    let mut stopping = vec![false; n];
    for id in ir.node_ids() {
        if let StmtKind::Call { callee, .. } = &ir.node(id).stmt.kind {
            stopping[id.0 as usize] = stops(callee);
        }
    }
    let mut out = vec![false; n];
    let mut stack = vec![ir.exit];
    while let Some(v) = stack.pop() {
        let i = v.0 as usize;
        if i >= n || out[i] || stopping[i] {
            continue;
        }
        out[i] = true;
        stack.extend(ir.node(v).preds.iter().copied());
    }
    Some(out)
}

/// Whether control can reach the function's exit from its entry, when a call for which
/// `stops` answers true (a callee that never returns) ends its path. A function for which this
/// is false never returns: every path from its entry ends in such a call or loops forever.
pub fn can_return(ir: &FunctionIr, stops: &mut dyn FnMut(&Callee) -> bool) -> bool {
    let mut seen = vec![false; ir.nodes.len()];
    let mut stack = vec![ir.entry];
    while let Some(n) = stack.pop() {
        let Some(slot) = seen.get_mut(n.0 as usize) else {
            continue;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        if n == ir.exit {
            return true;
        }
        let node = ir.node(n);
        if let StmtKind::Call { callee, .. } = &node.stmt.kind
            && stops(callee)
        {
            continue;
        }
        stack.extend(node.succs.iter().copied());
    }
    false
}

/// Where temporaries die: for each statement, the temporaries whose value is not needed after
/// it (it read or wrote them, and no path from it reads them again before writing them). C
/// has no such variable: a call result used as an argument lives for that one use. The engine
/// treats these deaths as `t ← 0` right after the statement, so a temporary is never an extra
/// reference to a block.
pub fn temp_deaths(ir: &FunctionIr) -> super::TempDeaths {
    let reads = temp_reads(ir);
    let mut writes: FxHashMap<LocalId, Vec<NodeId>> = FxHashMap::default();
    for id in ir.node_ids() {
        let dest = match &ir.node(id).stmt.kind {
            StmtKind::Alloc { addr, .. } | StmtKind::Assign { addr, .. } => Some(*addr),
            StmtKind::Call { dest: Some(d), .. } => Some(*d),
            _ => None,
        };
        if let Some(d) = dest
            && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(d)
            && ir.local(*l).kind == LocalKind::Temp
        {
            writes.entry(*l).or_default().push(id);
        }
    }
    let n = ir.nodes.len();
    let mut out: FxHashMap<NodeId, Vec<LocalId>> = FxHashMap::default();
    let mut temps: Vec<LocalId> = reads.keys().chain(writes.keys()).copied().collect();
    temps.sort();
    temps.dedup();
    for t in temps {
        let rs: &[NodeId] = reads.get(&t).map(|v| v.as_slice()).unwrap_or(&[]);
        let ws: &[NodeId] = writes.get(&t).map(|v| v.as_slice()).unwrap_or(&[]);
        let mut is_read = vec![false; n];
        let mut is_write = vec![false; n];
        for r in rs {
            is_read[r.0 as usize] = true;
        }
        for w in ws {
            is_write[w.0 as usize] = true;
        }
        // live_in[x]: some path from x reads t before writing it.
        let mut live_in = vec![false; n];
        let mut stack: Vec<NodeId> = rs.to_vec();
        for r in rs {
            live_in[r.0 as usize] = true;
        }
        while let Some(x) = stack.pop() {
            for &p in &ir.node(x).preds {
                let pi = p.0 as usize;
                if live_in[pi] || (is_write[pi] && !is_read[pi]) {
                    continue;
                }
                live_in[pi] = true;
                stack.push(p);
            }
        }
        for x in rs.iter().chain(ws.iter()) {
            let live_out = ir.node(*x).succs.iter().any(|s| live_in[s.0 as usize]);
            if !live_out {
                let v = out.entry(*x).or_default();
                if !v.contains(&t) {
                    v.push(t);
                }
            }
        }
    }
    out
}

/// Parameters the function never writes (no assignment, allocation or call result lands in
/// them, and their address is not taken).
pub(crate) fn unassigned_params(ir: &FunctionIr) -> Vec<LocalId> {
    let mut written: Vec<LocalId> = Vec::new();
    for n in &ir.nodes {
        let dest = match &n.stmt.kind {
            StmtKind::Alloc { addr, .. } | StmtKind::Assign { addr, .. } => Some(*addr),
            StmtKind::Call { dest: Some(d), .. } => Some(*d),
            _ => None,
        };
        // `p.f = …` on a struct parameter writes the parameter too.
        written.extend(dest.and_then(|d| written_local(ir, d)));
    }
    ir.params
        .iter()
        .copied()
        .filter(|p| !ir.local(*p).address_taken && !written.contains(p))
        .collect()
}

/// Writes into a block no other pointer can reach: for each assignment `n->f… = v` where the
/// local `n` holds a block allocated in this function whose address (or the address of any
/// part of it) has not been copied anywhere since, the local `n`. Such a write cannot change a
/// location reached through any other pointer, which the engine uses to keep facts about
/// other blocks' fields across it (`n->next = *headp` does not touch `(*headp)->next`).
///
/// A forward must-analysis: `n` becomes fresh at `n = alloc`, and stops being fresh at any
/// other use of its value than as the base of a field or dereference, at any write to `n`,
/// at `free`, at statements the front end could not model, and where expressions are unknown.
pub fn fresh_writes(ir: &FunctionIr) -> super::FreshWrites {
    let mut out = super::FreshWrites::default();
    // Candidates: scalar pointer locals, never address-taken, that receive an allocation.
    let mut cands: Vec<LocalId> = Vec::new();
    for n in &ir.nodes {
        if let StmtKind::Alloc { addr, .. } = &n.stmt.kind
            && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*addr)
            && !ir.local(*l).address_taken
            && ir.local(*l).ty.is_pointer()
            && !cands.contains(l)
        {
            cands.push(*l);
        }
    }
    if cands.is_empty() || cands.len() > 64 {
        return out;
    }
    // Nothing but an allocation makes a block fresh here.
    let Some((fresh_in, kill)) = fresh_dataflow(ir, &cands, &|_| false) else {
        // Did not settle: claim nothing.
        return out;
    };
    let bit = |l: LocalId| -> u64 {
        match cands.iter().position(|c| *c == l) {
            Some(i) => 1u64 << i,
            None => 0,
        }
    };
    for id in ir.node_ids() {
        if let StmtKind::Assign { addr, .. } = &ir.node(id).stmt.kind
            && let Some(l) = field_base_local(ir, *addr)
            && fresh_in[id.0 as usize] & bit(l) != 0
            && kill[id.0 as usize] & bit(l) == 0
        {
            out.insert(id, l);
        }
    }
    out
}

/// For each statement, the locals that hold a block nothing else points to yet, right
/// before it runs: a block made in this function (`n = malloc(…)`, or a call of a function
/// that returns only fresh memory, `fresh_call(name)`) whose address has not been stored,
/// copied, returned or handed on since (see `escaping_uses`), and whose local has not been
/// written or had its address passed anywhere. No other local, and no location in memory, can
/// hold a pointer into such a block, so a pointer read from memory is not the block.
///
/// The same forward must-analysis as [`fresh_writes`]; bit `i` of an entry is `locals[i]`.
pub fn fresh_values(ir: &FunctionIr, fresh_call: &dyn Fn(&str) -> bool) -> super::FreshValues {
    let mut locals: Vec<LocalId> = Vec::new();
    let cand = |l: LocalId, locals: &mut Vec<LocalId>| {
        if ir.local(l).ty.is_pointer() && !locals.contains(&l) {
            locals.push(l);
        }
    };
    for n in &ir.nodes {
        match &n.stmt.kind {
            StmtKind::Alloc { addr, .. } => {
                if let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*addr) {
                    cand(*l, &mut locals);
                }
            }
            StmtKind::Call {
                dest: Some(d),
                callee: Callee::Direct(name),
                ..
            } if fresh_call(name) => {
                if let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*d) {
                    cand(*l, &mut locals);
                }
            }
            _ => {}
        }
    }
    locals.truncate(64);
    let none = super::FreshValues {
        locals: vec![],
        before: vec![],
    };
    if locals.is_empty() {
        return none;
    }
    match fresh_dataflow(ir, &locals, fresh_call) {
        Some((before, _)) => super::FreshValues { locals, before },
        None => none,
    }
}

/// The forward must-analysis behind [`fresh_writes`] and [`fresh_values`] over `locals` (at
/// most 64; bit `i` is `locals[i]`): a local becomes fresh where it receives an allocation (or
/// the result of a call `fresh_call` names), and stops being fresh at any other use of its
/// value than as the base of a field or dereference (`escaping_uses`), at any write to it or
/// hand-off of its address (`address_uses`), at `free`, at its scope's bounds, at statements
/// the front end could not model and where expressions are unknown. Returns, per node, the
/// locals fresh right before it and those it makes stale; `None` when the iteration does not
/// settle.
fn fresh_dataflow(
    ir: &FunctionIr,
    locals: &[LocalId],
    fresh_call: &dyn Fn(&str) -> bool,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let bit = |l: LocalId| -> u64 {
        match locals.iter().position(|c| *c == l) {
            Some(i) => 1u64 << i,
            None => 0,
        }
    };
    let all: u64 = if locals.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << locals.len()) - 1
    };
    let n = ir.nodes.len();
    let mut kill = vec![0u64; n];
    let mut gen_ = vec![0u64; n];
    for id in ir.node_ids() {
        let i = id.0 as usize;
        let mut k = 0u64;
        let mut unknown = false;
        let mut uses = |e: ExprId, as_base: bool, k: &mut u64| {
            escaping_uses(ir, e, as_base, &mut |l| *k |= bit(l), &mut unknown);
            // An address-taken local whose address goes anywhere but straight into a read or
            // write of it may be changed there.
            address_uses(ir, e, false, &mut |l| *k |= bit(l));
        };
        match &ir.node(id).stmt.kind {
            StmtKind::Assign { addr, value } => {
                uses(*addr, true, &mut k);
                uses(*value, false, &mut k);
                k |= written_local(ir, *addr).map_or(0, bit);
            }
            StmtKind::ZeroFill { addr } => {
                uses(*addr, true, &mut k);
                k |= written_local(ir, *addr).map_or(0, bit);
            }
            StmtKind::Alloc { addr, .. } => {
                uses(*addr, true, &mut k);
                k |= written_local(ir, *addr).map_or(0, bit);
                if let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*addr) {
                    gen_[i] = bit(*l);
                }
            }
            StmtKind::Free { ptr } => {
                uses(*ptr, false, &mut k);
                if let ExprKind::Deref(a) = ir.exprs.kind(*ptr)
                    && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*a)
                {
                    k |= bit(*l);
                }
            }
            StmtKind::Cond { lhs, rhs, .. } => {
                // A comparison reads the value without keeping it.
                for e in [*lhs, *rhs] {
                    if let ExprKind::Deref(a) = ir.exprs.kind(e)
                        && matches!(ir.exprs.kind(*a), ExprKind::Addr(Symbol::Local(_)))
                    {
                        continue;
                    }
                    uses(e, false, &mut k);
                }
            }
            StmtKind::Call { dest, callee, args } => {
                for a in args {
                    uses(*a, false, &mut k);
                }
                if let Callee::Indirect(f) = callee {
                    uses(*f, false, &mut k);
                }
                if let Some(d) = dest {
                    uses(*d, true, &mut k);
                    k |= written_local(ir, *d).map_or(0, bit);
                    if let Callee::Direct(name) = callee
                        && fresh_call(name)
                        && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*d)
                    {
                        gen_[i] = bit(*l);
                    }
                }
            }
            StmtKind::Return { value: Some(v) } => uses(*v, false, &mut k),
            StmtKind::ScopeBegin { locals: ls } | StmtKind::ScopeEnd { locals: ls, .. } => {
                for l in ls {
                    k |= bit(*l);
                }
            }
            StmtKind::Opaque { .. } => k = all,
            StmtKind::Enter | StmtKind::Nop | StmtKind::Return { value: None } => {}
        }
        if unknown {
            k = all;
        }
        kill[i] = k;
    }
    // before[x] = ∩ over predecessors of (before[p] − kill[p]) ∪ gen[p]; nothing at entry.
    let before = must_forward(ir, all, 0, |b, p| (b & !kill[p]) | gen_[p])?;
    Some((before, kill))
}

/// A forward must-analysis over bit sets (`all` is every bit): the set right before each
/// statement is the intersection over its predecessors of `after(before[p], p)`, and
/// `at_entry` at the entry; a statement without predecessors gets the empty set. Iterated
/// down from `all`; `None` when it does not settle within 1,000 rounds.
pub(super) fn must_forward(
    ir: &FunctionIr,
    all: u64,
    at_entry: u64,
    after: impl Fn(u64, usize) -> u64,
) -> Option<Vec<u64>> {
    let mut before = vec![all; ir.nodes.len()];
    before[ir.entry.0 as usize] = at_entry;
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 1000 {
        changed = false;
        rounds += 1;
        for id in ir.node_ids() {
            let i = id.0 as usize;
            if id == ir.entry {
                continue;
            }
            let preds = &ir.node(id).preds;
            let mut v = if preds.is_empty() { 0 } else { all };
            for p in preds {
                v &= after(before[p.0 as usize], p.0 as usize);
            }
            if v != before[i] {
                before[i] = v;
                changed = true;
            }
        }
    }
    (!changed).then_some(before)
}

/// For each statement, the locals that point into a block allocated during this call of the
/// function, right before it runs: set by `l = malloc(…)` (not a reallocation, which carries
/// the old block), by `l = f(…)` of a function that returns only fresh memory
/// (`fresh_call(name)`), and by `l = m + k` or a copy of such an `m`; cleared by any other
/// write of `l`, by `free(l)`, where `l`'s scope begins or ends, and at code the front end
/// did not model. A forward must-analysis; bit `i` of an entry is `locals[i]` (at most 64).
///
/// Unlike [`fresh_values`], handing the pointer on does not matter: the block is new to the
/// function's callers whoever else holds it, so what is written into it changes no memory
/// that existed before the call (the MOD summaries leave such writes out).
pub fn new_blocks(
    ir: &FunctionIr,
    fresh_call: &dyn Fn(&str) -> bool,
) -> Option<(Vec<LocalId>, Vec<u64>)> {
    let mut locals: Vec<LocalId> = Vec::new();
    for n in &ir.nodes {
        let dest = match &n.stmt.kind {
            StmtKind::Alloc { addr, .. } => Some(*addr),
            StmtKind::Call {
                dest: Some(d),
                callee: Callee::Direct(name),
                ..
            } if fresh_call(name) => Some(*d),
            _ => None,
        };
        if let Some(d) = dest
            && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(d)
            && !ir.local(*l).address_taken
            && ir.local(*l).ty.is_pointer()
            && !locals.contains(l)
        {
            locals.push(*l);
        }
    }
    // And the pointer locals that copies or offsets of those are assigned to (`ret = (char *)e
    // + sizeof *e`).
    let mut grew = !locals.is_empty();
    while grew && locals.len() < 64 {
        grew = false;
        for n in &ir.nodes {
            if let StmtKind::Assign { addr, value } = &n.stmt.kind
                && let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*addr)
                && !locals.contains(l)
                && !ir.local(*l).address_taken
                && ir.local(*l).ty.is_pointer()
                && points_into_local(ir, *value).is_some_and(|m| locals.contains(&m))
            {
                locals.push(*l);
                grew = true;
            }
        }
    }
    if locals.is_empty() {
        return None;
    }
    locals.truncate(64);
    let bit = |l: LocalId| -> u64 {
        match locals.iter().position(|c| *c == l) {
            Some(i) => 1u64 << i,
            None => 0,
        }
    };
    let derived_from = |e: ExprId| points_into_local(ir, e);
    // Reallocations are lowered as `free(old); p = alloc` over the same text.
    let frees: rustc_hash::FxHashSet<_> = ir
        .nodes
        .iter()
        .filter(|n| matches!(n.stmt.kind, StmtKind::Free { .. }))
        .map(|n| n.stmt.range)
        .collect();
    let all: u64 = if locals.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << locals.len()) - 1
    };
    let n = ir.nodes.len();
    // after = (before & keep) | gen, or `copy`: the written local takes the bit of the local
    // its new value derives from.
    let mut keep = vec![all; n];
    let mut gen_ = vec![0u64; n];
    let mut copy: Vec<Option<(LocalId, LocalId)>> = vec![None; n];
    for id in ir.node_ids() {
        let i = id.0 as usize;
        let node = ir.node(id);
        let written = |e: ExprId| match ir.exprs.kind(e) {
            ExprKind::Addr(Symbol::Local(l)) => Some(*l),
            _ => None,
        };
        match &node.stmt.kind {
            StmtKind::Alloc { addr, .. } => {
                if let Some(l) = written(*addr) {
                    keep[i] &= !bit(l);
                    if !frees.contains(&node.stmt.range) {
                        gen_[i] |= bit(l);
                    }
                }
            }
            StmtKind::Assign { addr, value } => {
                if let Some(l) = written(*addr) {
                    keep[i] &= !bit(l);
                    if let Some(m) = derived_from(*value) {
                        copy[i] = Some((l, m));
                    }
                } else if let Some(l) = written_local(ir, *addr) {
                    keep[i] &= !bit(l);
                }
            }
            StmtKind::ZeroFill { addr } => {
                if let Some(l) = written_local(ir, *addr) {
                    keep[i] &= !bit(l);
                }
            }
            StmtKind::Call { dest, callee, .. } => {
                if let Some(d) = dest
                    && let Some(l) = written_local(ir, *d)
                {
                    keep[i] &= !bit(l);
                    if let Callee::Direct(name) = callee
                        && written(*d) == Some(l)
                        && fresh_call(name)
                    {
                        gen_[i] |= bit(l);
                    }
                }
            }
            StmtKind::Free { ptr } => {
                if let Some(m) = derived_from(*ptr) {
                    keep[i] &= !bit(m);
                }
            }
            StmtKind::ScopeBegin { locals: ls } | StmtKind::ScopeEnd { locals: ls, .. } => {
                for l in ls {
                    keep[i] &= !bit(*l);
                }
            }
            StmtKind::Opaque { .. } => keep[i] = 0,
            StmtKind::Cond { .. } | StmtKind::Enter | StmtKind::Nop | StmtKind::Return { .. } => {}
        }
    }
    let after = |before: u64, i: usize| -> u64 {
        let mut v = (before & keep[i]) | gen_[i];
        if let Some((l, m)) = copy[i]
            && before & bit(m) != 0
        {
            v |= bit(l);
        }
        v
    };
    let before = must_forward(ir, all, 0, after)?;
    Some((locals, before))
}

/// The local of a new block (see [`new_blocks`]) that pointer `e` points into, when its
/// value is that local plus or minus an offset.
pub fn points_into_local(ir: &FunctionIr, e: ExprId) -> Option<LocalId> {
    let mut e = e;
    for _ in 0..8 {
        match ir.exprs.kind(e) {
            ExprKind::Deref(a) => {
                return match ir.exprs.kind(*a) {
                    ExprKind::Addr(Symbol::Local(m)) => Some(*m),
                    _ => None,
                };
            }
            ExprKind::Binary(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, a, b)
                if ir.exprs.ty(e).is_pointer() =>
            {
                let (pa, pb) = (ir.exprs.ty(*a).is_pointer(), ir.exprs.ty(*b).is_pointer());
                e = match (pa, pb) {
                    (true, false) => *a,
                    (false, true) => *b,
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
    None
}

/// Calls `taken(l)` for each address-taken local whose address `e` uses other than as the
/// location of a read or write of it (`&l` handed on, stored, or computed with).
fn address_uses(ir: &FunctionIr, e: ExprId, as_addr: bool, taken: &mut dyn FnMut(LocalId)) {
    match ir.exprs.kind(e) {
        ExprKind::Addr(Symbol::Local(l)) if !as_addr && ir.local(*l).address_taken => taken(*l),
        ExprKind::Deref(a) => address_uses(ir, *a, true, taken),
        ExprKind::Field(b, _) => address_uses(ir, *b, as_addr, taken),
        ExprKind::Binary(_, l, r) => {
            address_uses(ir, *l, false, taken);
            address_uses(ir, *r, false, taken);
        }
        _ => {}
    }
}

/// The local `n` of an address `&n->f…` (fields of the block `n` points to).
fn field_base_local(ir: &FunctionIr, mut e: ExprId) -> Option<LocalId> {
    let mut fields = 0;
    while let ExprKind::Field(b, _) = ir.exprs.kind(e) {
        e = *b;
        fields += 1;
    }
    if fields == 0 {
        return None;
    }
    match ir.exprs.kind(e) {
        ExprKind::Deref(a) => match ir.exprs.kind(*a) {
            ExprKind::Addr(Symbol::Local(l)) => Some(*l),
            _ => None,
        },
        _ => None,
    }
}

/// The local an address writes (`&x`, `&x.f`).
pub(super) fn written_local(ir: &FunctionIr, mut e: ExprId) -> Option<LocalId> {
    while let ExprKind::Field(b, _) = ir.exprs.kind(e) {
        e = *b;
    }
    match ir.exprs.kind(e) {
        ExprKind::Addr(Symbol::Local(l)) => Some(*l),
        _ => None,
    }
}

/// Calls `escape(n)` for each local `n` whose value (or an address inside its block) `e`
/// may yield or hand on. `as_base`: `e` is an address that is dereferenced right away, so
/// `n->f` addresses in it are not escapes. Unknown expressions set `unknown`.
fn escaping_uses(
    ir: &FunctionIr,
    e: ExprId,
    as_base: bool,
    escape: &mut dyn FnMut(LocalId),
    unknown: &mut bool,
) {
    match ir.exprs.kind(e) {
        ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) => {}
        ExprKind::Unknown => *unknown = true,
        ExprKind::Deref(a) => {
            if let ExprKind::Addr(Symbol::Local(l)) = ir.exprs.kind(*a) {
                // The value of `n`: an escape unless it is only dereferenced.
                if !as_base {
                    escape(*l);
                }
            } else {
                // A read through an address: that address is dereferenced.
                escaping_uses(ir, *a, true, escape, unknown);
            }
        }
        ExprKind::Field(b, _) => escaping_uses(ir, *b, as_base, escape, unknown),
        ExprKind::Binary(_, l, r) => {
            // Arithmetic makes a new address or number from its operands: any pointer in it
            // may be kept.
            escaping_uses(ir, *l, false, escape, unknown);
            escaping_uses(ir, *r, false, escape, unknown);
        }
    }
}

/// How a self-recursive function descends: the calls to itself that only pure code can
/// precede, and the one parameter those calls vary (see `descent`).
#[derive(Debug)]
pub(super) struct Descent {
    /// The varying parameter: a pointer the function never assigns.
    pub param: LocalId,
    /// Self-calls that no write to memory, call or unknown code can precede in their frame.
    pub sites: rustc_hash::FxHashSet<NodeId>,
}

/// Whether `f` (with self-call nodes `self_calls`) recurses by pure descent, and how.
///
/// A frame that reaches one of the returned `sites` has changed nothing but its own
/// unaliased locals since its entry, and every parameter but `param` is passed on
/// unchanged. So along a chain of such calls the memory is the same at every entry, and two
/// frames with the same `param` would run the same path to the same call with the same
/// arguments: the recursion would never return. In an execution where the inner frame
/// returns, the `param`s of the frames of the chain are pairwise different.
pub(super) fn descent(ir: &FunctionIr, self_calls: &[NodeId]) -> Option<Descent> {
    if self_calls.is_empty() {
        return None;
    }
    let mut written: Vec<bool> = vec![false; ir.locals.len()];
    let mut impure: Vec<NodeId> = Vec::new();
    for id in ir.node_ids() {
        let kind = &ir.node(id).stmt.kind;
        match kind {
            StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => {
                if let Some(l) = written_local(ir, *addr) {
                    written[l.0 as usize] = true;
                }
            }
            StmtKind::Call { dest: Some(d), .. } => {
                if let Some(l) = written_local(ir, *d) {
                    written[l.0 as usize] = true;
                }
            }
            StmtKind::Opaque { .. } => return None,
            _ => {}
        }
        let pure = match kind {
            StmtKind::Enter
            | StmtKind::Nop
            | StmtKind::ScopeBegin { .. }
            | StmtKind::ScopeEnd { .. } => true,
            StmtKind::Cond { lhs, rhs, .. } => !has_unknown(ir, *lhs) && !has_unknown(ir, *rhs),
            StmtKind::Assign { addr, value } => {
                written_local(ir, *addr).is_some_and(|l| !ir.local(l).address_taken)
                    && !has_unknown(ir, *addr)
                    && !has_unknown(ir, *value)
            }
            _ => false,
        };
        if !pure {
            impure.push(id);
        }
    }
    // Nodes some path reaches after an impure node (a self-call included).
    let mut after_impure = vec![false; ir.nodes.len()];
    let mut stack: Vec<NodeId> = Vec::new();
    for id in impure {
        stack.extend(ir.node(id).succs.iter().copied());
    }
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut after_impure[n.0 as usize], true) {
            continue;
        }
        stack.extend(ir.node(n).succs.iter().copied());
    }
    let sites: rustc_hash::FxHashSet<NodeId> = self_calls
        .iter()
        .copied()
        .filter(|n| !after_impure[n.0 as usize])
        .collect();
    let mut varying: Vec<usize> = Vec::new();
    for &site in &sites {
        let StmtKind::Call { args, .. } = &ir.node(site).stmt.kind else {
            return None;
        };
        if args.len() != ir.params.len() {
            return None;
        }
        for (i, (&a, &p)) in args.iter().zip(&ir.params).enumerate() {
            let passed_on = matches!(ir.exprs.kind(a), ExprKind::Deref(x)
                if matches!(ir.exprs.kind(*x), ExprKind::Addr(Symbol::Local(l)) if *l == p))
                && !written[p.0 as usize]
                && !ir.local(p).address_taken;
            if !passed_on && !varying.contains(&i) {
                varying.push(i);
            }
        }
    }
    let [i] = varying.as_slice() else {
        return None;
    };
    let param = ir.params[*i];
    let l = ir.local(param);
    if written[param.0 as usize] || l.address_taken || !l.ty.is_pointer() {
        return None;
    }
    Some(Descent { param, sites })
}

/// Function `name` of snippet `src`, lowered, and its calls to itself (found by name).
#[cfg(test)]
pub(super) fn recursive_snippet(src: &str, name: &str) -> (FunctionIr, Vec<NodeId>) {
    let ir = crate::ir::lower_snippet(src)
        .1
        .into_iter()
        .find(|ir| ir.name == name)
        .expect("the function");
    let calls: Vec<NodeId> = ir
        .node_ids()
        .filter(|&n| {
            matches!(&ir.node(n).stmt.kind,
                StmtKind::Call { callee: Callee::Direct(c), .. } if c == name)
        })
        .collect();
    (ir, calls)
}

fn has_unknown(ir: &FunctionIr, e: ExprId) -> bool {
    match ir.exprs.kind(e) {
        ExprKind::Unknown => true,
        ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) => false,
        ExprKind::Deref(x) | ExprKind::Field(x, _) => has_unknown(ir, *x),
        ExprKind::Binary(_, l, r) => has_unknown(ir, *l) || has_unknown(ir, *r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The descent of function `name` in `src`.
    fn descent_of(src: &str, name: &str) -> Option<(String, usize)> {
        let (ir, calls) = recursive_snippet(src, name);
        descent(&ir, &calls).map(|d| (ir.local(d.param).name.clone(), d.sites.len()))
    }

    const NODE: &str = "struct node { int mark; struct node *next; struct node *left; };\n";

    #[test]
    fn a_new_block_stays_new_when_handed_on_and_not_when_reassigned() {
        let src = "#include <stdlib.h>\n#include <string.h>\n\
             struct chunk { struct chunk *next; };\n\
             void *take(struct chunk **list, size_t n, char *old, int k) {\n\
             struct chunk *e = malloc(sizeof *e + n);\n\
             char *ret; char *q = realloc(old, n);\n\
             if (!e) abort();\n\
             e->next = *list;\n\
             *list = e;\n\
             ret = (char *)e + sizeof *e;\n\
             memset(ret, 0, n);\n\
             memset(q, 0, n);\n\
             if (k) ret = old;\n\
             memcpy(ret, old, n);\n\
             return ret;\n}\n";
        let ir = crate::ir::lower_snippet(src)
            .1
            .into_iter()
            .find(|ir| ir.name == "take")
            .expect("the function");
        let (locals, before) = new_blocks(&ir, &|_| false).expect("candidates");
        let at = |text: &str| {
            ir.node_ids()
                .find(|n| {
                    crate::ir::display_stmt(&ir, &ir.node(*n).stmt.kind, crate::ir::Notation::C)
                        == text
                })
                .unwrap_or_else(|| panic!("no statement `{text}`"))
        };
        let is_new = |node: NodeId, arg: usize| {
            let StmtKind::Call { args, .. } = &ir.node(node).stmt.kind else {
                panic!("not a call");
            };
            points_into_local(&ir, args[arg]).is_some_and(|l| {
                locals
                    .iter()
                    .position(|c| *c == l)
                    .is_some_and(|i| before[node.0 as usize] & (1 << i) != 0)
            })
        };
        assert!(
            is_new(at("call memset(ret, 0, n)"), 0),
            "an offset into the new block, published"
        );
        assert!(
            !is_new(at("call memset(q, 0, n)"), 0),
            "a reallocation keeps the old block"
        );
        assert!(
            !is_new(at("call memcpy(ret, old, n)"), 0),
            "`ret` may be `old` here"
        );
    }

    #[test]
    fn statements_on_paths_into_exit_do_not_return() {
        let src = "#include <stdlib.h>\nint g; int h;\n\
             void f(int x) {\n\
             if (x) { g = 1; exit(1); }\n\
             h = 2;\n}\n";
        let ir = crate::ir::lower_snippet(src)
            .1
            .into_iter()
            .find(|ir| ir.name == "f")
            .expect("the function");
        let returning = returning_nodes(
            &ir,
            &mut |c| matches!(c, Callee::Direct(n) if crate::ir::library::is_noreturn(n)),
        )
        .expect("no opaque code");
        let at = |text: &str| {
            ir.node_ids()
                .find(|n| {
                    crate::ir::display_stmt(&ir, &ir.node(*n).stmt.kind, crate::ir::Notation::C)
                        == text
                })
                .unwrap_or_else(|| panic!("no statement `{text}`"))
        };
        assert!(!returning[at("g = 1").0 as usize]);
        assert!(!returning[at("call exit(1)").0 as usize]);
        assert!(returning[at("h = 2").0 as usize]);
    }

    #[test]
    fn a_block_is_fresh_until_its_address_is_stored_or_handed_on() {
        let src = format!(
            "#include <stdlib.h>\n{NODE}void *xnew(size_t n);\n\
             void keep(struct node *n);\n\
             void link(struct node **headp, struct node *last) {{\n\
             struct node *a = malloc(sizeof *a);\n\
             struct node *b = xnew(sizeof *b);\n\
             a->mark = 1;\n\
             if (last) last->next = a;\n\
             b->mark = 2;\n\
             keep(b);\n\
             *headp = b;\n}}\n"
        );
        let ir = crate::ir::lower_snippet(&src)
            .1
            .into_iter()
            .find(|ir| ir.name == "link")
            .expect("the function");
        let fv = fresh_values(&ir, &|n| n == "xnew");
        let local =
            |name: &str| LocalId(ir.locals.iter().position(|l| l.name == name).unwrap() as u32);
        let (a, b) = (local("a"), local("b"));
        let at = |text: &str| {
            ir.node_ids()
                .find(|n| {
                    crate::ir::display_stmt(&ir, &ir.node(*n).stmt.kind, crate::ir::Notation::C)
                        == text
                })
                .unwrap_or_else(|| panic!("no statement `{text}`"))
        };
        assert!(fv.fresh_before(at("a->mark = 1"), a));
        assert!(
            fv.fresh_before(at("last->next = a"), a),
            "published by this very statement"
        );
        assert!(
            !fv.fresh_before(at("b->mark = 2"), a),
            "after it was stored"
        );
        assert!(
            fv.fresh_before(at("b->mark = 2"), b),
            "from an allocating call"
        );
        assert!(!fv.fresh_before(at("*headp = b"), b), "handed to `keep`");
    }

    #[test]
    fn a_recursion_that_only_reads_first_descends_on_its_one_varying_pointer() {
        let src = format!(
            "{NODE}struct node *app(struct node *a, struct node *b, int k) {{\n\
             struct node *t;\n\
             if (a == 0 || a->mark > k) return b;\n\
             t = a->next;\n\
             a->next = app(t, b, k);\n\
             return a;\n}}\n"
        );
        assert_eq!(descent_of(&src, "app"), Some(("a".into(), 1)));
    }

    #[test]
    fn a_write_to_memory_before_the_call_is_not_pure() {
        let src = format!(
            "{NODE}struct node *walk(struct node *n) {{\n\
             if (n == 0 || n->mark) return n;\n\
             n->mark = 1;\n\
             n->next = walk(n->next);\n\
             return n;\n}}\n"
        );
        assert_eq!(descent_of(&src, "walk"), None);
    }

    #[test]
    fn a_call_before_the_recursive_call_is_not_pure() {
        let src = format!(
            "{NODE}int seen(struct node *n);\n\
             struct node *walk(struct node *n) {{\n\
             if (n == 0 || seen(n)) return n;\n\
             n->next = walk(n->next);\n\
             return n;\n}}\n"
        );
        assert_eq!(descent_of(&src, "walk"), None);
    }

    #[test]
    fn only_the_calls_that_nothing_impure_precedes_are_sites() {
        // The second call comes after the first, which may write anything.
        let src = format!(
            "{NODE}void drop(struct node *t) {{\n\
             if (t == 0) return;\n\
             drop(t->left);\n\
             drop(t->next);\n\
             t->mark = 0;\n}}\n"
        );
        assert_eq!(descent_of(&src, "drop"), Some(("t".into(), 1)));
    }

    #[test]
    fn two_varying_arguments_or_an_assigned_parameter_do_not_descend() {
        let two = format!(
            "{NODE}int depth(struct node *n, int d) {{\n\
             if (n == 0) return d;\n\
             return depth(n->next, d + 1);\n}}\n"
        );
        assert_eq!(descent_of(&two, "depth"), None);
        let assigned = format!(
            "{NODE}struct node *last(struct node *n) {{\n\
             if (n == 0) return 0;\n\
             if (n->next == 0) return n;\n\
             n = n->next;\n\
             return last(n);\n}}\n"
        );
        assert_eq!(descent_of(&assigned, "last"), None);
        let global = format!(
            "{NODE}int count;\n\
             struct node *walk(struct node *n) {{\n\
             if (n == 0) return n;\n\
             count = count + 1;\n\
             n->next = walk(n->next);\n\
             return n;\n}}\n"
        );
        assert_eq!(descent_of(&global, "walk"), None);
    }
}
