//! Block-scope declarations: locals and their initializers, statics and externs, typedefs,
//! VLA sizes.

use super::{Binding, Builder};
use crate::ir::types::{Type, declarator_type};
use crate::ir::{LocalId, LocalKind, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{has_syntax_error, text};
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn local_typedef(&mut self, n: Node) {
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            return;
        };
        let base = self.specifier_type(spec);
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.local_structs);
            if let Some((name, _)) = name
                && let Some(s) = self.scopes.last_mut()
            {
                s.typedefs.insert(name, ty);
            }
        }
    }

    pub(super) fn local_declaration(&mut self, n: Node) {
        if self.misparsed_prototype(n) {
            return;
        }
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            self.fallback(TextRange::of_node(&n), "declaration without a type");
            return;
        };
        let mut storage = "";
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.kind() == "storage_class_specifier" {
                storage = text(ch, src);
            }
        }
        let base = self.specifier_type(spec);
        let mut c = n.walk();
        let declarators: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        let mut declared: Vec<(LocalId, Option<Node>, TextRange)> = Vec::new();
        for d in declarators {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.local_structs);
            let Some((name, name_range)) = name else {
                continue;
            };
            let ty = self.resolve(&ty);
            let init = if d.kind() == "init_declarator" {
                d.child_by_field_name("value")
            } else {
                None
            };
            if let Type::Function(_) = ty {
                // A block-scope prototype: nothing to lower.
                continue;
            }
            if storage == "static" || storage == "extern" {
                let global = if storage == "static" {
                    // Two block-scope statics of one name are two objects.
                    let base = format!("{}::{}", self.name, name);
                    let mut global = base.clone();
                    let mut k = 1;
                    while self.statics.iter().any(|(g, _)| *g == global) {
                        k += 1;
                        global = format!("{base}#{k}");
                    }
                    global
                } else {
                    name.clone()
                };
                if storage == "static" {
                    self.statics
                        .push((global.clone(), self.ctx.qualify(&ty).into_owned()));
                }
                if let Some(s) = self.scopes.last_mut() {
                    s.names.insert(name, Binding::Global(global, ty));
                }
                // A static's initializer runs once before main, not at each call; it is
                // recorded with the statics, not lowered here.
                continue;
            }
            // VLA sizes are evaluated at the declaration.
            self.vla_sizes(d);
            // A name declared twice in one block comes from alternative `#if` branches
            // (`#ifdef A int *p = x; #else int *p = y; #endif`): both declare the same object.
            let again = self.scopes.last().and_then(|s| match s.names.get(&name) {
                Some(Binding::Local(l)) if self.locals[l.0 as usize].ty == ty => Some(*l),
                _ => None,
            });
            let l = match again {
                Some(l) => l,
                None => {
                    let l = self.new_local(&name, ty, LocalKind::Local, name_range);
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(name, Binding::Local(l));
                        s.locals.push(l);
                    }
                    l
                }
            };
            declared.push((l, init, TextRange::of_node(&d)));
        }
        if declared.is_empty() {
            return;
        }
        let locals: Vec<LocalId> = declared.iter().map(|d| d.0).collect();
        self.emit(StmtKind::ScopeBegin { locals }, TextRange::of_node(&n));
        if has_syntax_error(n) {
            // The names are declared (later statements use them); the initializers are not
            // understood: opaque, and every initialized local gets an unknown value.
            self.syntax_error(n);
            for (l, init, range) in declared {
                if init.is_some() {
                    let addr = self.addr_of_local(l);
                    let u = self.unknown(self.locals[l.0 as usize].ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                }
            }
            return;
        }
        for (l, init, range) in declared {
            if let Some(v) = init {
                let addr = self.addr_of_local(l);
                let ty = self.locals[l.0 as usize].ty.clone();
                self.assign_into(addr, &ty, v, range);
            }
        }
    }

    fn vla_sizes(&mut self, d: Node) {
        let mut node = d;
        for _ in 0..16 {
            if node.kind() == "array_declarator"
                && let Some(size) = node.child_by_field_name("size")
                && !matches!(size.kind(), "number_literal")
            {
                self.effect(size);
            }
            match node.child_by_field_name("declarator") {
                Some(n) => node = n,
                None => break,
            }
        }
    }
}
