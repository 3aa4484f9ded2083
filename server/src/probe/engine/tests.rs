//! Unit tests of the engine's helpers on small facts, where a whole probe (a fixture) is too
//! coarse to say which rule did the work: disjointness and the §4.8 questions built on it,
//! single transfer functions, and Map/Unmap (the binding of formals to actuals).

use super::frames::Frames;
use super::{Ctx, Engine};
use crate::ir::{BinOp, Callee, CmpOp, NodeId, StmtKind, Type};
use crate::probe::expr::{E, EKind, Sym};
use crate::probe::snippet::SnippetProgram;
use crate::probe::state::{Fact, PtrRel, miss};
use crate::probe::{EngineConfig, FuncId, ProbeKind, ProbeSite, Program, Start, Subject};
use crate::regions::RegionSet;

const SRC: &str = "struct list { int data; struct list *next; };\n\
    void callee(struct list *a, struct list *b) { a->next = b; }\n\
    void caller(struct list *x, struct list *y) {\n\
      struct list *t;\n\
      t = x;\n\
      callee(x, y);\n\
    }\n";

/// An engine over `prog` that has not started a probe.
fn engine(prog: &SnippetProgram) -> Engine<'_> {
    let site = ProbeSite {
        node: NodeId(0),
        kind: ProbeKind::Assignment,
        start: Start::Before,
        subject: Subject::CallResult { dest: None },
        range: Default::default(),
        variable: String::new(),
    };
    Engine::new(prog, EngineConfig::default(), 0, &site)
}

/// The address `&v` of local `v` of `f`.
fn addr(eng: &mut Engine, prog: &SnippetProgram, f: FuncId, v: &str) -> E {
    eng.local_addr(f, prog.local(f, v))
}

/// The value of local `v` of `f` (`*&v`).
fn var(eng: &mut Engine, prog: &SnippetProgram, f: FuncId, v: &str) -> E {
    let a = addr(eng, prog, f, v);
    eng.arena.deref(a)
}

/// The location `v->field` (its address is `&v->field`).
fn field(eng: &mut Engine, prog: &SnippetProgram, f: FuncId, v: &str, fld: &str) -> E {
    let base = var(eng, prog, f, v);
    let a = eng.field_addr(base, fld);
    eng.arena.deref(a)
}

/// The regions location `e` may be in.
fn regions_of(eng: &mut Engine, e: E) -> RegionSet {
    let a = eng.addr_of(e).expect("a location");
    eng.arena.pt(a)
}

/// A fact whose only references to the cell are in the regions of `holders`, and which
/// hits `hits` and misses `misses`.
fn fact(eng: &mut Engine, holders: &[E], hits: &[E], misses: &[E]) -> Fact {
    let mut s = RegionSet::empty();
    for &h in holders {
        let r = regions_of(eng, h);
        s.union_with(&r);
    }
    Fact::new(s, hits.iter().copied(), misses.iter().copied())
}

fn call_node(prog: &SnippetProgram, f: FuncId, name: &str) -> NodeId {
    let ir = crate::probe::Program::body(prog, f);
    ir.node_ids()
        .find(|&n| {
            matches!(&ir.node(n).stmt.kind,
                StmtKind::Call { callee: Callee::Direct(c), .. } if c == name)
        })
        .expect("the call")
}

/// Whether expression `e` names a symbol `pred` accepts.
fn mentions(eng: &Engine, e: E, pred: impl Fn(Sym) -> bool) -> bool {
    eng.arena.mentions(e, &pred)
}

// ---- disjointness ------------------------------------------------------------------------

#[test]
fn reads_of_other_variables_and_other_fields_are_disjoint_from_a_write() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let x = var(&mut eng, &prog, caller, "x");
    let x_next = field(&mut eng, &prog, caller, "x", "next");
    let x_data = field(&mut eng, &prog, caller, "x", "data");
    let y_next = field(&mut eng, &prog, caller, "y", "next");
    let y = var(&mut eng, &prog, caller, "y");
    let w_y = regions_of(&mut eng, y);
    let w_y_next = regions_of(&mut eng, y_next);
    assert!(eng.disjoint(x, &w_y), "`x` is not read by a write to `y`");
    assert!(eng.disjoint(x_data, &w_y_next), "another field");
    assert!(
        !eng.disjoint(x_next, &w_y_next),
        "the same field of two blocks may be the same location"
    );
}

#[test]
fn an_address_keeps_its_value_unless_it_reads_the_written_region() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let y_next = field(&mut eng, &prog, caller, "y", "next");
    let w = regions_of(&mut eng, y_next);
    let e0 = eng.addr_of(y_next).unwrap();
    // `&x->next` reads only `x`; `&x->next->next` reads `x->next`, which the write may change.
    let x_next = field(&mut eng, &prog, caller, "x", "next");
    let x_next_addr = eng.addr_of(x_next).unwrap();
    let x_next_next = eng.field_addr(x_next, "next");
    assert!(eng.unchanged_by(x_next_addr, &w, e0));
    assert!(!eng.unchanged_by(x_next_next, &w, e0));
}

#[test]
fn pointer_values_differ_by_a_relation_or_when_one_hits_and_the_other_misses() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let x = var(&mut eng, &prog, caller, "x");
    let y = var(&mut eng, &prog, caller, "y");
    let unknown = fact(&mut eng, &[x, y], &[], &[]);
    assert!(!eng.distinct_values(&unknown, x, y));
    let mut related = unknown.clone();
    related.relations.push(PtrRel::new(x, y, false));
    related.normalize();
    assert!(eng.distinct_values(&related, x, y));
    assert!(eng.distinct_values(&related, y, x), "symmetric");
    let hit_and_miss = fact(&mut eng, &[x], &[x], &[y]);
    assert!(eng.distinct_values(&hit_and_miss, x, y));
}

#[test]
fn a_location_of_a_tagged_region_other_than_its_tags_holds_no_reference() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let x = var(&mut eng, &prog, caller, "x");
    let y = var(&mut eng, &prog, caller, "y");
    let x_next = field(&mut eng, &prog, caller, "x", "next");
    let y_next = field(&mut eng, &prog, caller, "y", "next");
    // The `next` fields hold the cell at `x->next` only.
    let s = regions_of(&mut eng, x_next);
    let tagged = Fact::probe(s, x_next, []);
    assert_eq!(tagged.tags.len(), 1);
    // `y->next` may be `x->next` itself, unless `x != y`.
    assert!(!eng.outside_tags(&tagged, y_next));
    let mut apart = tagged.clone();
    apart.relations.push(PtrRel::new(x, y, false));
    apart.normalize();
    assert!(eng.outside_tags(&apart, y_next));
    assert!(eng.misses(&apart, y_next));
    assert!(!eng.outside_tags(&apart, x_next), "the tag itself");
}

#[test]
fn elements_of_one_array_differ_when_their_indices_differ_by_a_known_number() {
    let src = "struct list { int data; struct list *next; };\n\
        void f(struct list **tab, int err, int first, int k) { tab[err - first] = 0; }\n";
    let prog = SnippetProgram::new(src);
    let mut eng = engine(&prog);
    let f = prog.func("f");
    let tab = var(&mut eng, &prog, f, "tab");
    let err = var(&mut eng, &prog, f, "err");
    let first = var(&mut eng, &prog, f, "first");
    let k = var(&mut eng, &prog, f, "k");
    let int = Type::Int;
    let ptr_ty = eng.arena.ty(tab).clone();
    let one = eng.arena.int(1);
    let at = |eng: &mut Engine, idx: E| eng.arena.mk(EKind::Bin(BinOp::Add, tab, idx), &ptr_ty);
    // `tab[err - first]` and `tab[(err + 1) - first]`: one element apart.
    let d = eng.arena.mk(EKind::Bin(BinOp::Sub, err, first), &int);
    let e1 = eng.arena.mk(EKind::Bin(BinOp::Add, err, one), &int);
    let d1 = eng.arena.mk(EKind::Bin(BinOp::Sub, e1, first), &int);
    let (a, b) = (at(&mut eng, d), at(&mut eng, d1));
    assert!(eng.distinct_elements(a, b));
    assert!(!eng.distinct_elements(a, a), "the same element");
    // `tab[err - first]` and `tab[k]`: nothing known.
    let c = at(&mut eng, k);
    assert!(!eng.distinct_elements(a, c));
    // An untracked number may be any value: `tab[<number>]` and `tab[<number> + 1]` may meet.
    let num = eng.arena.mk(EKind::Num, &int);
    let num1 = eng.arena.mk(EKind::Bin(BinOp::Add, num, one), &int);
    let (n0, n1) = (at(&mut eng, num), at(&mut eng, num1));
    assert!(!eng.distinct_elements(n0, n1));
}

// ---- transfer functions ------------------------------------------------------------------

#[test]
fn assignment_moves_the_hit_to_the_right_hand_side() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let t = var(&mut eng, &prog, caller, "t");
    let t_addr = addr(&mut eng, &prog, caller, "t");
    let x = var(&mut eng, &prog, caller, "x");
    // After `t = x`, `t` references the cell and `t` and `x` may: before it, `x` does.
    let d = fact(&mut eng, &[t, x], &[t], &[]);
    let before = eng.assign(&d, t_addr, x).expect("feasible");
    assert_eq!(before.hits.as_slice(), &[x]);
    // If only `t` may reference the cell afterwards, `x` (which still does) cannot have
    // held it: a contradiction.
    let only_t = fact(&mut eng, &[t], &[t], &[]);
    assert!(eng.assign(&only_t, t_addr, x).is_none());
    // Overwriting the reference with NULL cannot leave it there.
    let zero = eng.zero();
    assert!(eng.assign(&d, t_addr, zero).is_none());
}

#[test]
fn free_refutes_a_hit_and_kills_the_references_in_the_block() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let t = var(&mut eng, &prog, caller, "t");
    let x = var(&mut eng, &prog, caller, "x");
    let hit = fact(&mut eng, &[x], &[x], &[]);
    assert!(eng.free(&hit, x).is_none(), "a freed block is not leaked");
    let d = fact(&mut eng, &[t, x], &[t], &[]);
    let before = eng.free(&d, x).expect("feasible");
    // `x` misses: `cleanup`'s strong update takes its variable's region out of S.
    assert!(miss(&mut eng.arena, &before, x));
    let x_regions = regions_of(&mut eng, x);
    assert!(!before.regions.intersects(&x_regions));
    // Backwards, `x->next` is written with NULL: it may have held the reference.
    let x_next = field(&mut eng, &prog, caller, "x", "next");
    let r = regions_of(&mut eng, x_next);
    for region in r.iter() {
        assert!(before.regions.contains(region));
        assert_eq!(before.tags_of(region), &[(region, x_next)]);
    }
}

#[test]
fn a_branch_on_null_refutes_a_hit_and_keeps_the_other_side_as_a_constraint() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let x = var(&mut eng, &prog, caller, "x");
    let zero = eng.zero();
    let d = fact(&mut eng, &[x], &[x], &[]);
    assert!(eng.cond(&d, x, CmpOp::Eq, zero).is_none());
    let f = eng.cond(&d, x, CmpOp::Ne, zero).expect("feasible");
    assert_eq!(f.constraints.len(), 1);
    assert_eq!(f.constraints[0].e, x);
}

#[test]
fn a_scope_that_begins_drops_its_locals() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let caller = prog.func("caller");
    let t = var(&mut eng, &prog, caller, "t");
    let x = var(&mut eng, &prog, caller, "x");
    let lt = prog.local(caller, "t");
    let hit = fact(&mut eng, &[t], &[t], &[]);
    assert!(
        eng.scope_begin(&hit, caller, &[lt]).is_none(),
        "a fresh variable points nowhere"
    );
    let missed = fact(&mut eng, &[t, x], &[x], &[t]);
    let f = eng.scope_begin(&missed, caller, &[lt]).expect("feasible");
    assert!(f.misses.is_empty());
    let t_regions = regions_of(&mut eng, t);
    assert!(!f.regions.intersects(&t_regions));
}

// ---- Map and Unmap -----------------------------------------------------------------------

#[test]
fn unmap_binds_the_formals_to_the_actuals() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let (caller, callee) = (prog.func("caller"), prog.func("callee"));
    let node = call_node(&prog, caller, "callee");
    let a = var(&mut eng, &prog, callee, "a");
    let x = var(&mut eng, &prog, caller, "x");
    // At the callee's entry `a` references the cell; the caller's `x` may too.
    let d = fact(&mut eng, &[a, x], &[a], &[]);
    let before = eng
        .unmap(&d, callee, Ctx::BASE, caller, node, None)
        .expect("feasible");
    assert!(before.is_hit(x), "the actual of `a` is `x`");
    for &h in &before.hits {
        assert!(
            !mentions(&eng, h, |s| matches!(s, Sym::Shadow(_))
                || matches!(s, Sym::Local(f, _) if f == callee)),
            "no shadow or callee local is left"
        );
    }
    // If `a` is the only holder, the caller's `x` is a second reference: a contradiction.
    let only_a = fact(&mut eng, &[a], &[a], &[]);
    assert!(
        eng.unmap(&only_a, callee, Ctx::BASE, caller, node, None)
            .is_none()
    );
}

#[test]
fn map_freezes_the_caller_and_binds_stable_parameters_and_unmap_undoes_it() {
    let prog = SnippetProgram::new(SRC);
    let mut eng = engine(&prog);
    let (caller, callee) = (prog.func("caller"), prog.func("callee"));
    let node = call_node(&prog, caller, "callee");
    let x = var(&mut eng, &prog, caller, "x");
    let d = fact(&mut eng, &[x], &[x], &[]);
    assert!(eng.enter_callee(
        caller,
        node,
        Ctx::BASE,
        d,
        callee,
        None,
        false,
        Frames::Exact
    ));
    let slot = eng
        .worklist
        .slots
        .last()
        .expect("a fact at the callee's exit");
    let exit = crate::probe::Program::body(&prog, callee).exit;
    assert_eq!((slot.func, slot.node), (callee, exit));
    let (ctx, mapped) = (slot.ctx, slot.fact.clone());
    assert_ne!(ctx, Ctx::BASE);
    // The caller's `x` is frozen one frame up.
    let [h] = mapped.hits.as_slice() else {
        panic!("one hit")
    };
    let frozen_x = *h;
    assert!(matches!(*eng.arena.kind(frozen_x), EKind::Deref(p)
        if matches!(*eng.arena.kind(p), EKind::Addr(Sym::Frozen(1, f, _)) if f == caller)));
    // `a` is never assigned in `callee`: inside this context it reads as the frozen `x`.
    let a = var(&mut eng, &prog, callee, "a");
    assert_eq!(eng.bind(callee, ctx, a), frozen_x);
    // At the entry, the formals may hold the cell (backwards, the return sequence
    // nullified them); otherwise the argument `x` could not have been passed as `a`.
    let mut at_entry = mapped.clone();
    let a_regions = regions_of(&mut eng, a);
    assert!(
        eng.unmap(
            &at_entry,
            callee,
            ctx,
            caller,
            node,
            Some((Ctx::BASE, None))
        )
        .is_none()
    );
    at_entry.regions.union_with(&a_regions);
    // Back out, the frozen `x` is the caller's `x` again.
    let back = eng
        .unmap(
            &at_entry,
            callee,
            ctx,
            caller,
            node,
            Some((Ctx::BASE, None)),
        )
        .expect("feasible");
    assert!(back.is_hit(x));
    for &h in &back.hits {
        assert!(!mentions(&eng, h, |s| matches!(s, Sym::Frozen(..))));
    }
}

/// A statement no path from the entry reaches is where a path ends in a body the front end
/// lowered whole (dead code: `proved`), but not in one with syntax errors, where the edges
/// into it may be what the front end lost: `unsupported`, never `proved`.
#[test]
fn code_cut_off_by_a_syntax_error_is_not_proved() {
    let src = "void free(void *p);\nvoid *malloc(unsigned long n);\n\
        int f(int a) {\n\
          char *p = malloc(4);\n\
          if (a) { free(p); return 0; }\n\
          return 1;\n\
        }\n";
    let verdict = |fallback: bool| {
        let mut prog = SnippetProgram::new(src);
        let f = prog.func("f");
        prog.edit_body(f, |ir| {
            // Cut every edge into `ret = 1` (line 6), as a lost `else` would.
            let cut: Vec<NodeId> = ir
                .node_ids()
                .filter(|&n| {
                    ir.node(n).stmt.range.start > 0
                        && matches!(ir.node(n).stmt.kind, StmtKind::Assign { .. })
                        && crate::ir::display_stmt(
                            ir,
                            &ir.node(n).stmt.kind,
                            crate::ir::Notation::C,
                        ) == "ret = 1"
                })
                .collect();
            assert_eq!(cut.len(), 1);
            for &c in &cut {
                for p in std::mem::take(&mut ir.nodes[c.0 as usize].preds) {
                    ir.nodes[p.0 as usize].succs.retain(|s| *s != c);
                }
            }
            if fallback {
                ir.fallbacks.push(crate::ir::Fallback {
                    range: Default::default(),
                    reason: "syntax error".into(),
                });
            }
        });
        let ir = prog.body(f);
        let env = prog.env();
        let sites = crate::probe::probe_sites(&ir, env, &|_| true, false);
        // The last `p` goes out of scope: at `return 1`.
        let site = sites
            .iter()
            .rfind(|s| s.variable == "p" && s.kind == ProbeKind::ReturnLocal)
            .unwrap_or_else(|| panic!("the probe of `p` at `return 1`: {sites:?}"));
        super::run_probe(&prog, f, site, crate::probe::EngineConfig::default()).verdict
    };
    assert!(
        matches!(verdict(false), crate::probe::Verdict::Proved { .. }),
        "dead code in a whole body: {:?}",
        verdict(false)
    );
    let v = verdict(true);
    assert!(
        matches!(
            v,
            crate::probe::Verdict::Unproved(crate::probe::Unproved::Unsupported { .. })
        ),
        "cut off by a syntax error: {v:?}"
    );
}

/// `it->magic` of `f`, and the same read past `it = *p` (`it` replaced by the `void *` `*p`).
fn magic_past_it_assignment(eng: &mut Engine, prog: &SnippetProgram, f: FuncId) -> (E, E) {
    let it = var(eng, prog, f, "it");
    let magic = field(eng, prog, f, "it", "magic");
    let p = var(eng, prog, f, "p");
    let star_p = eng.arena.deref(p);
    (magic, eng.arena.substitute(magic, it, star_p))
}

/// `it = *p` with `p` a `void **`: past it, `it->magic` reads `magic` through the `void *`
/// `*p`. The member is still the struct's (region `Field(struct iter, magic)`), not all
/// memory, so a write of another type's member leaves it alone.
#[test]
fn a_member_read_through_a_void_pointer_keeps_its_structs_region() {
    let src = "struct iter { int magic; int pos; };\n\
        struct list { int n; };\n\
        void f(void **p, struct list *l) {\n\
          struct iter *it;\n\
          it = *p;\n\
          l->n = it->magic;\n\
        }\n";
    let prog = SnippetProgram::new(src);
    let mut eng = engine(&prog);
    let f = prog.func("f");
    let (magic, moved) = magic_past_it_assignment(&mut eng, &prog, f);
    assert_ne!(moved, magic);
    let r = regions_of(&mut eng, moved);
    assert!(!r.all_memory, "the struct's member, not all memory: {r:?}");
    assert_eq!(r, regions_of(&mut eng, magic));
    let l_n = field(&mut eng, &prog, f, "l", "n");
    let w = regions_of(&mut eng, l_n);
    assert!(eng.disjoint(moved, &w), "a write of `l->n` leaves it alone");
}

/// The same through a struct declared nowhere: it has no member regions, so the member read
/// through the `void *` keeps all memory (never an empty set, which would make a reference
/// there impossible).
#[test]
fn a_member_of_a_struct_declared_nowhere_read_through_a_void_pointer_is_anywhere() {
    let src = "void f(void **p) {\n\
          struct hidden *it;\n\
          it = *p;\n\
          g(it->magic);\n\
        }\n";
    let prog = SnippetProgram::new(src);
    let mut eng = engine(&prog);
    let f = prog.func("f");
    let (_, moved) = magic_past_it_assignment(&mut eng, &prog, f);
    let r = regions_of(&mut eng, moved);
    assert!(r.all_memory || !r.is_empty(), "never no region: {r:?}");
}
