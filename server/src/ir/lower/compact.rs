//! Finishing: the builder's nodes become the function's CFG, without pass-through joins and
//! numbered in source-like order.

use super::{Builder, Node0};
use crate::ir::{FunctionIr, Node as IrNode, NodeId, StmtKind};
use smallvec::SmallVec;

impl Builder<'_> {
    pub(super) fn finish(self) -> FunctionIr {
        let (nodes, entry, exit) = compact(self.nodes, self.entry, self.exit);
        FunctionIr {
            name: self.name,
            sig: self.sig,
            locals: self.locals,
            params: self.params,
            ret: self.ret,
            exprs: self.exprs,
            nodes,
            entry,
            exit,
            statics: self.statics,
            string_literals: self.string_literals,
            fallbacks: self.fallbacks,
        }
    }
}

/// Remove `Nop` joins with a single successor (redirecting their predecessors), then renumber
/// the remaining nodes and compute predecessors. Entry and exit are kept.
fn compact(nodes: Vec<Node0>, entry: NodeId, exit: NodeId) -> (Vec<IrNode>, NodeId, NodeId) {
    let n = nodes.len();
    // forward[i]: where an edge into i should go instead.
    let mut forward: Vec<u32> = (0..n as u32).collect();
    let skippable = |i: usize| {
        i != entry.0 as usize
            && i != exit.0 as usize
            && matches!(nodes[i].stmt.kind, StmtKind::Nop)
            && nodes[i].succs.len() == 1
            && nodes[i].succs[0].0 as usize != i
    };
    for (i, f) in forward.iter_mut().enumerate() {
        if skippable(i) {
            *f = nodes[i].succs[0].0;
        }
    }
    // Follow chains (cycle-safe: a chain longer than n is a cycle of Nops; stop there).
    let resolve = |mut i: u32, forward: &[u32]| -> u32 {
        let mut steps = 0;
        while forward[i as usize] != i && steps <= n {
            i = forward[i as usize];
            steps += 1;
        }
        i
    };
    let mut target: Vec<u32> = (0..n as u32).map(|i| resolve(i, &forward)).collect();
    // A Nop cycle resolves to some member; keep that member as a real node.
    let kept: Vec<bool> = (0..n).map(|i| target[i] == i as u32).collect();
    let mut renum = vec![u32::MAX; n];
    // Number the kept nodes in source-like order: reverse postorder from the entry (a branch's
    // first successor first), then unreachable code in creation order, then the exit.
    let succs_of = |i: usize| -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for s in &nodes[i].succs {
            let t = target[s.0 as usize];
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    };
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let e = entry.0 as usize;
    visited[e] = true;
    // (node, its successors, how many have been visited), successors taken last-first so that
    // the reversed postorder lists the first successor's code first.
    let mut stack: Vec<(u32, Vec<u32>, usize)> = vec![(e as u32, succs_of(e), 0)];
    while let Some(top) = stack.last_mut() {
        let (node, succs, next) = (top.0, &top.1, top.2);
        if next < succs.len() {
            let s = succs[succs.len() - 1 - next];
            top.2 += 1;
            if !visited[s as usize] {
                visited[s as usize] = true;
                stack.push((s, succs_of(s as usize), 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    order.reverse();
    order.retain(|&i| i != exit.0);
    for i in 0..n {
        if kept[i] && !visited[i] && i != exit.0 as usize {
            order.push(i as u32);
        }
    }
    order.push(exit.0);
    let mut out: Vec<IrNode> = Vec::new();
    for &i in &order {
        let i = i as usize;
        renum[i] = out.len() as u32;
        out.push(IrNode {
            stmt: nodes[i].stmt.clone(),
            succs: SmallVec::new(),
            preds: SmallVec::new(),
        });
    }
    for t in target.iter_mut() {
        *t = renum[*t as usize];
    }
    for &i in &order {
        let i = i as usize;
        let from = renum[i];
        for s in &nodes[i].succs {
            let to = NodeId(target[s.0 as usize]);
            let succs = &mut out[from as usize].succs;
            if !succs.contains(&to) {
                succs.push(to);
            }
        }
    }
    for i in 0..out.len() {
        let succs = out[i].succs.clone();
        for s in succs {
            out[s.0 as usize].preds.push(NodeId(i as u32));
        }
    }
    (
        out,
        NodeId(renum[entry.0 as usize]),
        NodeId(renum[exit.0 as usize]),
    )
}
