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
            constant_names: self
                .named_constants
                .into_iter()
                .filter(|(v, _)| !self.numbers.contains(v))
                .filter_map(|(v, n)| Some((v, n?)))
                .collect(),
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
    // A cycle of Nops (an empty infinite loop: `while (1);` in dead code) keeps its smallest
    // node as a real node, so that every chain ends at a kept node. (Each node is walked
    // once: a walk stops at a node seen before.)
    let mut seen = vec![0u8; n]; // 0: not yet, 1: on the current walk, 2: done
    let mut walk: Vec<usize> = Vec::new();
    for start in 0..n {
        walk.clear();
        let mut x = start;
        while seen[x] == 0 {
            seen[x] = 1;
            walk.push(x);
            x = forward[x] as usize;
        }
        if seen[x] == 1
            && let Some(pos) = walk.iter().position(|&w| w == x)
            && let Some(&rep) = walk[pos..].iter().min()
        {
            forward[rep] = rep as u32;
        }
        for &w in &walk {
            seen[w] = 2;
        }
    }
    // Follow the chains, now acyclic, each node once.
    let mut target: Vec<u32> = vec![u32::MAX; n];
    for start in 0..n {
        walk.clear();
        let mut x = start;
        while target[x] == u32::MAX && forward[x] as usize != x {
            walk.push(x);
            x = forward[x] as usize;
        }
        let t = if target[x] == u32::MAX {
            x as u32
        } else {
            target[x]
        };
        target[x] = t;
        for &w in &walk {
            target[w] = t;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Stmt;
    use crate::syntax::TextRange;

    fn node(kind: StmtKind, succs: &[u32]) -> Node0 {
        Node0 {
            stmt: Stmt {
                kind,
                range: TextRange::default(),
            },
            succs: succs.iter().map(|&s| NodeId(s)).collect(),
        }
    }

    /// A cycle of Nops in unreachable code (`return; @ while (1);`, found by the
    /// `build_project` fuzz target): every length keeps one node of the cycle, and every edge
    /// has a target.
    #[test]
    fn a_cycle_of_nops_keeps_one_node() {
        for len in 1..=7u32 {
            // 0 enter -> 1 exit; 2 -> 3 -> … -> 2 + len - 1 -> 2: a Nop cycle nobody reaches.
            let mut nodes = vec![node(StmtKind::Enter, &[1]), node(StmtKind::Nop, &[])];
            nodes[1].stmt.kind = StmtKind::Return { value: None };
            for k in 0..len {
                let next = 2 + (k + 1) % len;
                nodes.push(node(StmtKind::Nop, &[next]));
            }
            let (out, entry, exit) = compact(nodes, NodeId(0), NodeId(1));
            assert_eq!(out[entry.0 as usize].succs.as_slice(), [exit], "len {len}");
            let cycle: Vec<&IrNode> = out
                .iter()
                .filter(|x| matches!(x.stmt.kind, StmtKind::Nop))
                .collect();
            assert_eq!(cycle.len(), 1, "len {len}: {out:?}");
            for x in &out {
                for s in &x.succs {
                    assert!((s.0 as usize) < out.len(), "len {len}");
                }
            }
        }
    }
}
