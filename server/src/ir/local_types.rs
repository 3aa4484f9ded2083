//! Types a `.c` file defines for itself under a name other files define differently.
//!
//! C scopes a struct tag or a typedef name to its translation unit: lighttpd's modules each
//! define their own `plugin_data` and `handler_ctx`, libarchive's readers their own
//! `struct cpio` and `struct tree`. The workspace's type environment is one map by name (the
//! first definition wins), so every other file's `p->member` read a member of the wrong
//! struct: unknown (its writes became "all memory" in the MOD summaries) or, worse, a member
//! of another type (a pointer member taken as an integer, which no reference can live in).
//!
//! A name that the workspace's files define in more than one way is qualified, in each `.c`
//! file that defines it, with that file's path (`plugin_data@src/mod_cgi.c`): the file's
//! declarations gain a copy under the qualified name, and the lowering of the file's
//! functions reads every type through [`TypeQualifiers::qualify`]. Headers are left as they
//! are (which header a file sees is decided by its includes), and so is the unqualified
//! name: a file that does not define the name itself still reads the first definition, as
//! before. Definitions that are the same everywhere stay shared, so a block passed between
//! two files that both define its (identical) struct keeps one type.

use super::types::{FieldDef, FnSig, StructDef, Type, TypeEnv};
use rustc_hash::{FxHashMap, FxHashSet};

/// Separates a qualified name from the file it belongs to (no C identifier contains it).
pub const QUALIFIER: char = '@';

/// The name as the user wrote it: a qualified name without its file.
pub fn unqualified(name: &str) -> &str {
    name.split_once(QUALIFIER).map_or(name, |(n, _)| n)
}

/// The typedef names and struct/union tags of one file that are qualified, each with its
/// qualified name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeQualifiers {
    pub typedefs: FxHashMap<String, String>,
    pub tags: FxHashMap<String, String>,
}

impl TypeQualifiers {
    pub fn is_empty(&self) -> bool {
        self.typedefs.is_empty() && self.tags.is_empty()
    }

    /// Whether `t` names a type this file qualifies.
    fn touches(&self, t: &Type) -> bool {
        match t {
            Type::Named(n) => self.typedefs.contains_key(n),
            Type::Struct(s) | Type::Union(s) => self.tags.contains_key(s),
            Type::Pointer(t) | Type::Array(t, _) => self.touches(t),
            Type::Function(sig) => {
                self.touches(&sig.ret) || sig.params.iter().any(|p| self.touches(p))
            }
            Type::Unknown | Type::Void | Type::Int | Type::Float => false,
        }
    }

    /// `t` with this file's names replaced by their qualified names (idempotent).
    pub fn qualify(&self, t: &Type) -> Type {
        if !self.touches(t) {
            return t.clone();
        }
        match t {
            Type::Named(n) => Type::Named(self.typedefs.get(n).unwrap_or(n).clone()),
            Type::Struct(s) => Type::Struct(self.tags.get(s).unwrap_or(s).clone()),
            Type::Union(s) => Type::Union(self.tags.get(s).unwrap_or(s).clone()),
            Type::Pointer(t) => Type::pointer_to(self.qualify(t)),
            Type::Array(t, n) => Type::Array(Box::new(self.qualify(t)), *n),
            Type::Function(sig) => Type::Function(Box::new(self.qualify_sig(sig))),
            t => t.clone(),
        }
    }

    pub fn qualify_sig(&self, sig: &FnSig) -> FnSig {
        FnSig {
            ret: self.qualify(&sig.ret),
            params: sig.params.iter().map(|p| self.qualify(p)).collect(),
            variadic: sig.variadic,
        }
    }

    /// Adds to `env` (the file's own declarations) a copy of each qualified definition under
    /// its qualified name, with the types it mentions qualified too.
    pub fn add_qualified_copies(&self, env: &mut TypeEnv) {
        for (name, q) in &self.typedefs {
            if let Some(t) = env.typedefs.get(name) {
                let t = self.qualify(t);
                env.typedefs.insert(q.clone(), t);
            }
        }
        for (tag, q) in &self.tags {
            if let Some(def) = env.structs.get(tag) {
                let def = StructDef {
                    tag: q.clone(),
                    is_union: def.is_union,
                    fields: def
                        .fields
                        .iter()
                        .map(|f| FieldDef {
                            name: f.name.clone(),
                            ty: self.qualify(&f.ty),
                        })
                        .collect(),
                };
                env.structs.insert(q.clone(), def);
            }
        }
    }
}

/// The names the workspace defines in more than one way, for [`qualifiers`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collisions {
    pub typedefs: FxHashSet<String>,
    pub tags: FxHashSet<String>,
}

/// Which typedef names and tags collide, given each file's own declarations. A name collides
/// when two files define it differently, or when it is defined by several files and its
/// definition mentions a colliding name (two files' `plugin_data` may read the same but hold
/// each file's own `plugin_config`). Forward declarations (a struct without members) define
/// nothing.
pub fn collisions<'a>(files: impl IntoIterator<Item = &'a TypeEnv>) -> Collisions {
    let mut typedefs: FxHashMap<&str, Vec<&Type>> = FxHashMap::default();
    let mut tags: FxHashMap<&str, Vec<&StructDef>> = FxHashMap::default();
    for env in files {
        for (n, t) in &env.typedefs {
            typedefs.entry(n.as_str()).or_default().push(t);
        }
        for (n, d) in &env.structs {
            if !d.fields.is_empty() {
                tags.entry(n.as_str()).or_default().push(d);
            }
        }
    }
    typedefs.retain(|_, v| v.len() > 1);
    tags.retain(|_, v| v.len() > 1);
    let mut out = Collisions::default();
    for (n, v) in &typedefs {
        if v.iter().any(|t| *t != v[0]) {
            out.typedefs.insert(n.to_string());
        }
    }
    for (n, v) in &tags {
        if v.iter()
            .any(|d| d.fields != v[0].fields || d.is_union != v[0].is_union)
        {
            out.tags.insert(n.to_string());
        }
    }
    // Definitions alike in text that mention a colliding name collide too.
    loop {
        let probe = TypeQualifiers {
            typedefs: out
                .typedefs
                .iter()
                .map(|n| (n.clone(), n.clone()))
                .collect(),
            tags: out.tags.iter().map(|n| (n.clone(), n.clone())).collect(),
        };
        let before = (out.typedefs.len(), out.tags.len());
        for (n, v) in &typedefs {
            if !out.typedefs.contains(*n) && v.iter().any(|t| probe.touches(t)) {
                out.typedefs.insert(n.to_string());
            }
        }
        for (n, v) in &tags {
            if !out.tags.contains(*n)
                && v.iter()
                    .any(|d| d.fields.iter().any(|f| probe.touches(&f.ty)))
            {
                out.tags.insert(n.to_string());
            }
        }
        if (out.typedefs.len(), out.tags.len()) == before {
            return out;
        }
    }
}

/// The qualifiers of a `.c` file whose own declarations are `own` and whose path is `path`:
/// the colliding names it defines.
pub fn qualifiers(own: &TypeEnv, collisions: &Collisions, path: &str) -> TypeQualifiers {
    let q = |n: &str| format!("{n}{QUALIFIER}{path}");
    TypeQualifiers {
        typedefs: own
            .typedefs
            .keys()
            .filter(|n| collisions.typedefs.contains(*n))
            .map(|n| (n.clone(), q(n)))
            .collect(),
        tags: own
            .structs
            .iter()
            .filter(|(n, d)| !d.fields.is_empty() && collisions.tags.contains(*n))
            .map(|(n, _)| (n.clone(), q(n)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(src: &str) -> TypeEnv {
        let tree = crate::syntax::parse(src, None);
        crate::ir::collect_items(&tree, src).env
    }

    #[test]
    fn differing_definitions_are_qualified_per_file_and_alike_ones_are_shared() {
        let a = env("typedef struct { int n; } plugin_config;\n\
             typedef struct { plugin_config conf; char *name; } plugin_data;\n\
             struct shared { int x; };\n");
        let b = env("typedef struct { char *path; } plugin_config;\n\
             typedef struct { plugin_config conf; char *name; } plugin_data;\n\
             struct shared { int x; };\n");
        let c = collisions([&a, &b]);
        assert!(c.typedefs.contains("plugin_config"));
        // Alike in text, but each holds its own file's `plugin_config`.
        assert!(c.tags.contains("plugin_data") || c.typedefs.contains("plugin_data"));
        assert!(!c.tags.contains("shared"));
        let qb = qualifiers(&b, &c, "b.c");
        let t = qb.qualify(&Type::pointer_to(Type::Named("plugin_data".into())));
        assert_eq!(t, Type::pointer_to(Type::Named("plugin_data@b.c".into())));
        let mut eb = b.clone();
        qb.add_qualified_copies(&mut eb);
        let mut ws = TypeEnv::default();
        ws.merge(&a);
        ws.merge(&eb);
        // The workspace resolves b's qualified name to b's definition, member by member.
        let conf = ws.field_type(&ws.resolve(&Type::Named("plugin_data@b.c".into())), "conf");
        let path = ws.field_type(&conf, "path");
        assert_eq!(path, Type::pointer_to(Type::Int));
        // The unqualified name is still the first definition.
        let conf_a = ws.field_type(&ws.resolve(&Type::Named("plugin_data".into())), "conf");
        assert_eq!(ws.field_type(&conf_a, "n"), Type::Int);
        assert_eq!(unqualified("plugin_data@b.c"), "plugin_data");
        assert_eq!(
            format!("{}", Type::Named("plugin_data@b.c".into())),
            "plugin_data"
        );
    }
}
