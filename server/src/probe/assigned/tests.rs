//! The flow of an assigned value on C snippets: which statements lose, free, return, store or
//! pass it (the verdicts of the probes it reaches are the database's tests).

use super::*;
use crate::ir::{LibraryModel, LowerContext, collect_items, lower_function};

/// The events of the value assigned on line `line` of function `func` in `src` (the first
/// pointer assignment on that line), one string per event: `LINE kind holder [probe kind]`.
fn events_at(src: &str, func: &str, line: u32) -> Vec<String> {
    let tree = crate::syntax::parse(src, None);
    let items = collect_items(&tree, src);
    let lib = LibraryModel::standard();
    let ctx = LowerContext {
        env: &items.env,
        lib: &lib,
        unit: None,
        qual: None,
    };
    let item = items
        .functions
        .iter()
        .find(|f| f.source.name == func)
        .expect("the function");
    let ir = lower_function(&item.source, &ctx);
    let names: Vec<&str> = items
        .functions
        .iter()
        .map(|f| f.source.name.as_str())
        .collect();
    let probes = crate::probe::probe_sites(&ir, &items.env, &|n| names.contains(&n), false);
    let line_of = |n: NodeId| {
        let at = item.start + ir.node(n).stmt.range.start;
        src[..at as usize].matches('\n').count() as u32 + 1
    };
    let site = assignment_sites(&ir, &items.env)
        .into_iter()
        .find(|&n| line_of(n) == line)
        .unwrap_or_else(|| panic!("no assignment on line {line}"));
    let flow = assigned_flow(&ir, &items.env, site, &probes).expect("a flow");
    flow.events
        .iter()
        .map(|(n, e)| {
            let l = line_of(*n);
            match e {
                Event::Lost { probe, holder } => {
                    format!("{l} lost {holder} {}", probes[*probe].kind.as_str())
                }
                Event::LostUnprobed { holder } => format!("{l} unprobed {holder}"),
                Event::CallerHolds { holder } => format!("{l} caller holds {holder}"),
                Event::Freed { holder } => format!("{l} freed {holder}"),
                Event::Returned { holder } => format!("{l} returned {holder}"),
                Event::Stored { into, holder } => format!("{l} stored {holder} into {into}"),
                Event::Passed { callee, holder } => format!("{l} passed {holder} to {callee}"),
                Event::AddressPassed { callee, holder } => {
                    format!("{l} address of {holder} to {callee}")
                }
                Event::Null { holder } => format!("{l} null {holder}"),
                Event::Opaque { .. } => format!("{l} opaque"),
                Event::Incomplete => format!("{l} incomplete"),
                Event::NotHeap { what } => format!("{l} not heap: {what}"),
            }
        })
        .collect()
}

const ERROR_PATH: &str = include_str!("../../../../test-fixtures/idioms/error-path-leak.c");
const ERROR_PATH_OK: &str = include_str!("../../../../test-fixtures/idioms/error-path-ok.c");

#[test]
fn the_block_of_the_error_path_fixture_is_lost_at_the_early_return() {
    assert_eq!(
        events_at(ERROR_PATH, "packet_checksum", 21),
        ["22 null copy", "25 lost copy return-local", "30 freed copy"]
    );
}

#[test]
fn the_fixed_error_path_frees_the_block_on_both_paths() {
    assert_eq!(
        events_at(ERROR_PATH_OK, "packet_checksum", 20),
        ["21 null copy", "24 freed copy", "31 freed copy"]
    );
}

#[test]
fn a_copy_follows_both_variables() {
    let src = "#include <stdlib.h>\n\
               void use(char *);\n\
               void f(char *q) {\n\
               char *p;\n\
               p = q;\n\
               use(p);\n\
               q = 0;\n\
               }\n";
    assert_eq!(
        events_at(src, "f", 5),
        [
            "6 passed p to `use`",
            "7 lost q assignment",
            "8 lost p return-local"
        ]
    );
    let src = "void f(char *q, char **out) {\n\
               char *p = q;\n\
               *out = p;\n\
               }\n";
    assert_eq!(
        events_at(src, "f", 2),
        [
            "3 stored p into *out",
            "4 lost p return-local",
            "4 caller holds q"
        ]
    );
}

#[test]
fn strdup_stored_into_a_field_and_returned() {
    let src = "#include <string.h>\n\
               struct pkt { char *buf; };\n\
               char *f(struct pkt *pk, const char *s) {\n\
               char *r;\n\
               r = strdup(s);\n\
               if (*s) { pk->buf = r; return 0; }\n\
               return r;\n\
               }\n";
    assert_eq!(
        events_at(src, "f", 5),
        [
            "6 stored r into pk->buf",
            "6 lost r return-local",
            "7 returned ret",
            "7 lost r return-local"
        ]
    );
}

#[test]
fn an_allocation_in_a_loop_is_lost_by_its_own_next_iteration() {
    let src = "#include <stdlib.h>\n\
               void f(int n) {\n\
               char *p = 0;\n\
               for (int i = 0; i < n; i++) {\n\
               p = malloc(10);\n\
               }\n\
               free(p);\n\
               }\n";
    assert_eq!(events_at(src, "f", 5), ["5 lost p allocation", "7 freed p"]);
}

#[test]
fn a_block_local_ends_its_scope_at_the_closing_brace() {
    let src = "#include <stdlib.h>\n\
               void f(int n) {\n\
               while (n--) {\n\
               char *t = malloc(4);\n\
               if (!t) break;\n\
               }\n\
               }\n";
    let events = events_at(src, "f", 4);
    assert!(events.contains(&"5 null t".to_string()), "{events:?}");
    assert!(
        events.contains(&"6 lost t scope-end".to_string()),
        "{events:?}"
    );
}

#[test]
fn a_result_stored_through_an_out_parameter_is_a_store() {
    let src = "#include <stdlib.h>\n\
               void f(char **out) {\n\
               *out = malloc(4);\n\
               }\n";
    assert_eq!(events_at(src, "f", 3), ["3 stored *out into *out"]);
}

#[test]
fn null_and_addresses_are_no_memory() {
    let src = "void f(int n) {\n\
               int x;\n\
               int *p = 0;\n\
               p = &x;\n\
               const char *s = \"text\";\n\
               }\n";
    assert_eq!(events_at(src, "f", 3), ["3 not heap: NULL"]);
    assert_eq!(events_at(src, "f", 4), ["4 not heap: the address `&x`"]);
    assert_eq!(events_at(src, "f", 5), ["5 not heap: a string literal"]);
}
