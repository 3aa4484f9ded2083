//! C types as far as the leak analysis needs them: which values are pointers, what they point
//! to, and the fields of structs. Typedef names stay symbolic (`Named`) until [`TypeEnv::resolve`]
//! looks them up in the workspace, so a file's items can be collected without the others.

use crate::syntax::ts::text;
use rustc_hash::FxHashMap;
use std::fmt;
use tree_sitter::Node;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Type {
    /// Not known (an unparsed type, or an expression whose type we could not work out).
    #[default]
    Unknown,
    Void,
    /// Every integer type, `_Bool`, `char` and enums.
    Int,
    Float,
    Pointer(Box<Type>),
    Array(Box<Type>, Option<u64>),
    Struct(String),
    Union(String),
    Function(Box<FnSig>),
    /// A typedef name, not yet resolved (or declared nowhere in the workspace, like `FILE`).
    Named(String),
}

impl Type {
    pub fn pointer_to(t: Type) -> Type {
        Type::Pointer(Box::new(t))
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }
    /// Pointer-like for value purposes: pointers and arrays (which decay to pointers).
    pub fn is_pointer_like(&self) -> bool {
        matches!(self, Type::Pointer(_) | Type::Array(..))
    }
    pub fn is_scalar_number(&self) -> bool {
        matches!(self, Type::Int | Type::Float)
    }
    /// What a pointer or array points to.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Pointer(t) | Type::Array(t, _) => Some(t),
            _ => None,
        }
    }
    pub fn struct_tag(&self) -> Option<&str> {
        match self {
            Type::Struct(t) | Type::Union(t) => Some(t),
            _ => None,
        }
    }
    pub fn is_aggregate(&self) -> bool {
        matches!(self, Type::Struct(_) | Type::Union(_))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unknown => write!(f, "?"),
            Type::Void => write!(f, "void"),
            Type::Int => write!(f, "int"),
            Type::Float => write!(f, "double"),
            Type::Pointer(t) => write!(f, "{t}*"),
            Type::Array(..) => {
                // C order: `int m[3][4]` is an array of 3 arrays of 4 ints.
                let mut dims = Vec::new();
                let mut t = self;
                while let Type::Array(inner, n) = t {
                    dims.push(*n);
                    t = inner;
                }
                write!(f, "{t}")?;
                for d in dims {
                    match d {
                        Some(n) => write!(f, "[{n}]")?,
                        None => write!(f, "[]")?,
                    }
                }
                Ok(())
            }
            Type::Struct(s) => write!(f, "struct {}", super::local_types::unqualified(s)),
            Type::Union(s) => write!(f, "union {}", super::local_types::unqualified(s)),
            Type::Function(sig) => {
                write!(f, "{}(", sig.ret)?;
                for (i, p) in sig.params.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{p}")?;
                }
                if sig.variadic {
                    write!(f, "{}...", if sig.params.is_empty() { "" } else { ", " })?;
                }
                write!(f, ")")
            }
            Type::Named(n) => write!(f, "{}", super::local_types::unqualified(n)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FnSig {
    pub ret: Type,
    pub params: Vec<Type>,
    pub variadic: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    pub tag: String,
    pub is_union: bool,
    /// Fields in order; members of anonymous nested structs/unions are flattened in.
    pub fields: Vec<FieldDef>,
}

impl StructDef {
    /// The type of member `name`, resolved by `resolve`: one declared in several arms of an
    /// undecided `#if` has the type the arms agree on, or none (`Unknown`); so has a name
    /// that is no member.
    pub fn member_type(&self, name: &str, resolve: impl Fn(&Type) -> Type) -> Type {
        let mut found: Option<Type> = None;
        for f in self.fields.iter().filter(|f| f.name == name) {
            let t = resolve(&f.ty);
            match &found {
                None => found = Some(t),
                Some(old) if *old == t => {}
                Some(_) => return Type::Unknown,
            }
        }
        found.unwrap_or(Type::Unknown)
    }
}

/// What the whole workspace declares: typedefs, struct layouts, function signatures, globals
/// and integer constants (enumerators and `#define NAME <number>`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TypeEnv {
    pub typedefs: FxHashMap<String, Type>,
    pub structs: FxHashMap<String, StructDef>,
    pub functions: FxHashMap<String, FnSig>,
    pub globals: FxHashMap<String, Type>,
    pub constants: FxHashMap<String, Option<i64>>,
}

/// Integer typedefs from the C library and POSIX that real code uses without us seeing their
/// headers. Treating them as integers keeps them out of the pointer analysis.
const BUILTIN_INTEGER_TYPEDEFS: &[&str] = &[
    "size_t",
    "ssize_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "intmax_t",
    "uintmax_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "int_least8_t",
    "int_least16_t",
    "int_least32_t",
    "int_least64_t",
    "uint_least8_t",
    "uint_least16_t",
    "uint_least32_t",
    "uint_least64_t",
    "int_fast8_t",
    "int_fast16_t",
    "int_fast32_t",
    "int_fast64_t",
    "uint_fast8_t",
    "uint_fast16_t",
    "uint_fast32_t",
    "uint_fast64_t",
    "off_t",
    "off64_t",
    "time_t",
    "clock_t",
    "pid_t",
    "uid_t",
    "gid_t",
    "mode_t",
    "dev_t",
    "ino_t",
    "nlink_t",
    "blksize_t",
    "blkcnt_t",
    "socklen_t",
    "suseconds_t",
    "useconds_t",
    "sig_atomic_t",
    "wchar_t",
    "wint_t",
    "char16_t",
    "char32_t",
    "bool",
    "_Bool",
    "errno_t",
    "rsize_t",
    "u_char",
    "u_short",
    "u_int",
    "u_long",
    // BSD and glibc spellings of the fixed-width and POSIX integer types.
    "u_int8_t",
    "u_int16_t",
    "u_int32_t",
    "u_int64_t",
    "__int8_t",
    "__int16_t",
    "__int32_t",
    "__int64_t",
    "__uint8_t",
    "__uint16_t",
    "__uint32_t",
    "__uint64_t",
    "__size_t",
    "__ssize_t",
    "__off_t",
    "__off64_t",
    "__pid_t",
    "__uid_t",
    "__gid_t",
    "__mode_t",
    "__time_t",
    "__socklen_t",
    // Linux's `<linux/types.h>` and `<asm/types.h>`.
    "__u8",
    "__u16",
    "__u32",
    "__u64",
    "__s8",
    "__s16",
    "__s32",
    "__s64",
    "__le16",
    "__le32",
    "__le64",
    "__be16",
    "__be32",
    "__be64",
    // More POSIX integer types.
    "in_addr_t",
    "in_port_t",
    "sa_family_t",
    "id_t",
    "key_t",
    "clockid_t",
    "nfds_t",
    "rlim_t",
    "speed_t",
    "tcflag_t",
    "cc_t",
    "fsblkcnt_t",
    "fsfilcnt_t",
    "blkcnt64_t",
    "ino64_t",
    "loff_t",
    "uint",
    "ulong",
    "ushort",
    "uchar",
];

/// Whether a type name is a C library integer typedef.
pub fn is_builtin_integer_typedef(name: &str) -> bool {
    BUILTIN_INTEGER_TYPEDEFS.contains(&name)
}

/// Typedef chains longer than this are treated as cycles.
const MAX_TYPEDEF_DEPTH: u32 = 32;

impl TypeEnv {
    /// Replace typedef names by what they stand for, everywhere inside `ty`.
    pub fn resolve(&self, ty: &Type) -> Type {
        self.resolve_depth(ty, 0)
    }

    fn resolve_depth(&self, ty: &Type, depth: u32) -> Type {
        if depth > MAX_TYPEDEF_DEPTH {
            return Type::Unknown;
        }
        match ty {
            Type::Named(n) => match self.typedefs.get(n) {
                Some(t) => self.resolve_depth(t, depth + 1),
                None if is_builtin_integer_typedef(n) => Type::Int,
                None => ty.clone(),
            },
            Type::Pointer(t) => Type::Pointer(Box::new(self.resolve_depth(t, depth + 1))),
            Type::Array(t, n) => Type::Array(Box::new(self.resolve_depth(t, depth + 1)), *n),
            Type::Function(sig) => Type::Function(Box::new(FnSig {
                ret: self.resolve_depth(&sig.ret, depth + 1),
                params: sig
                    .params
                    .iter()
                    .map(|p| self.resolve_depth(p, depth + 1))
                    .collect(),
                variadic: sig.variadic,
            })),
            _ => ty.clone(),
        }
    }

    /// The type of field `field` of struct/union type `ty` (after resolution). A member
    /// declared in more than one arm of an undecided `#if` (`DWORD t;` / `struct timeval t;`)
    /// has the type the arms agree on, or none (`Unknown`): the build may take either.
    pub fn field_type(&self, ty: &Type, field: &str) -> Type {
        let Some(tag) = ty.struct_tag() else {
            return Type::Unknown;
        };
        match self.structs.get(tag) {
            Some(def) => def.member_type(field, |t| self.resolve(t)),
            None => Type::Unknown,
        }
    }

    pub fn struct_def(&self, ty: &Type) -> Option<&StructDef> {
        ty.struct_tag().and_then(|t| self.structs.get(t))
    }

    /// Merge another file's declarations; the first definition of a name wins.
    pub fn merge(&mut self, other: &TypeEnv) {
        for (k, v) in &other.typedefs {
            self.typedefs.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &other.structs {
            // A definition with fields beats a forward declaration's empty one.
            match self.structs.get(k) {
                Some(old) if !old.fields.is_empty() => {}
                _ => {
                    self.structs.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in &other.functions {
            self.functions.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &other.globals {
            self.globals.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &other.constants {
            self.constants.entry(k.clone()).or_insert(*v);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Types from syntax

/// A stable tag for an anonymous struct: its body text's hash, so that identical definitions
/// seen from different files agree.
fn anonymous_tag(node: Node, src: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    text(node, src).hash(&mut h);
    format!("<anon {:08x}>", h.finish() as u32)
}

/// The tag of `struct $`, the text the lowering puts in place of a `typeof (…)` in a function
/// body (`ir::lower::typeofs`); `base_type` reads it as an unknown type.
pub(crate) const TYPEOF_STAND_IN_TAG: &str = "$";

/// The base type named by a declaration's specifiers (`type` field), and any struct definitions
/// found inside it (pushed to `structs`).
pub(crate) fn base_type(spec: Node, src: &[u8], structs: &mut Vec<StructDef>) -> Type {
    base_type_at(spec, src, structs, 0)
}

/// Struct definitions nested inside member declarations deeper than this keep their tag but
/// not their fields (only generated or hostile code nests them this deep).
const MAX_STRUCT_DEFINITION_DEPTH: u32 = 64;

/// [`base_type`] for a specifier `depth` struct definitions deep.
fn base_type_at(spec: Node, src: &[u8], structs: &mut Vec<StructDef>, depth: u32) -> Type {
    match spec.kind() {
        "primitive_type" => match text(spec, src) {
            "void" => Type::Void,
            "float" | "double" => Type::Float,
            _ => Type::Int,
        },
        "sized_type_specifier" => {
            // `unsigned`, `long double`, `short int`...
            let t = text(spec, src);
            if t.contains("double") || t.contains("float") {
                Type::Float
            } else {
                Type::Int
            }
        }
        "enum_specifier" => Type::Int,
        "struct_specifier" | "union_specifier" => {
            let is_union = spec.kind() == "union_specifier";
            let tag = match spec.child_by_field_name("name") {
                Some(n) => text(n, src).to_string(),
                None => anonymous_tag(spec, src),
            };
            if tag == TYPEOF_STAND_IN_TAG && spec.child_by_field_name("body").is_none() {
                // A `typeof` the lowering rewrote where it does not give the operand's type
                // (a parameter, a member of a local struct): unknown, never a struct `$`.
                return Type::Unknown;
            }
            if let Some(body) = spec.child_by_field_name("body")
                && depth < MAX_STRUCT_DEFINITION_DEPTH
            {
                let fields = struct_fields(body, src, structs, depth + 1);
                structs.push(StructDef {
                    tag: tag.clone(),
                    is_union,
                    fields,
                });
            }
            if is_union {
                Type::Union(tag)
            } else {
                Type::Struct(tag)
            }
        }
        "type_identifier" => {
            let n = text(spec, src);
            if is_builtin_integer_typedef(n) {
                Type::Int
            } else {
                Type::Named(n.to_string())
            }
        }
        "type_descriptor" => type_descriptor(spec, src, structs),
        _ => Type::Unknown,
    }
}

fn struct_fields(
    body: Node,
    src: &[u8],
    structs: &mut Vec<StructDef>,
    depth: u32,
) -> Vec<FieldDef> {
    let mut fields = Vec::new();
    let mut decls = Vec::new();
    field_declarations(body, 0, &mut decls);
    for decl in decls {
        let Some(spec) = decl.child_by_field_name("type") else {
            continue;
        };
        let base = base_type_at(spec, src, structs, depth);
        let mut c2 = decl.walk();
        let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c2).collect();
        if declarators.is_empty() {
            // C11 anonymous struct/union member: its fields belong to the parent. `base_type_at`
            // has just collected them (flattened already); parsing the body again would
            // double the work at every nesting level.
            if matches!(spec.kind(), "struct_specifier" | "union_specifier")
                && spec.child_by_field_name("name").is_none()
                && let Some(tag) = base.struct_tag()
                && let Some(def) = structs.iter().rev().find(|s| s.tag == tag)
            {
                fields.extend(def.fields.clone());
            }
            continue;
        }
        for d in declarators {
            let (name, ty) = declarator_type(base.clone(), d, src, structs);
            if let Some((name, _)) = name {
                fields.push(FieldDef { name, ty });
            }
        }
    }
    fields
}

/// The member declarations of a struct body in order, with those inside conditional groups
/// the preprocessor left undecided (`#if (NGX_SSL || NGX_COMPAT)` around `ssl`): the parser
/// keeps such a group as a node of its own, and every arm of it is code the build may see.
fn field_declarations<'t>(body: Node<'t>, depth: u32, out: &mut Vec<Node<'t>>) {
    let mut cursor = body.walk();
    for decl in body.named_children(&mut cursor) {
        match decl.kind() {
            "field_declaration" => out.push(decl),
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef"
                if depth < MAX_DECLARATOR_DEPTH =>
            {
                field_declarations(decl, depth + 1, out)
            }
            _ => {}
        }
    }
}

/// `(type_descriptor type: … declarator: abstract…)` as used by casts, sizeof and compound
/// literals.
pub(crate) fn type_descriptor(node: Node, src: &[u8], structs: &mut Vec<StructDef>) -> Type {
    let Some(spec) = node.child_by_field_name("type") else {
        return Type::Unknown;
    };
    let base = base_type(spec, src, structs);
    match node.child_by_field_name("declarator") {
        Some(d) => declarator_type(base, d, src, structs).1,
        None => base,
    }
}

/// Declarators nest deeper than this only in generated or hostile code.
const MAX_DECLARATOR_DEPTH: u32 = 64;

/// Apply a declarator to a base type: returns the declared name (with its node range) and the
/// full type. The outermost declarator node applies first, so `*a[3]` is an array of pointers.
pub(crate) fn declarator_type(
    base: Type,
    decl: Node,
    src: &[u8],
    structs: &mut Vec<StructDef>,
) -> (Option<(String, crate::syntax::TextRange)>, Type) {
    let mut ty = base;
    let mut node = decl;
    for _ in 0..MAX_DECLARATOR_DEPTH {
        match node.kind() {
            "identifier" | "field_identifier" | "type_identifier" | "primitive_type" => {
                return (
                    Some((
                        text(node, src).to_string(),
                        crate::syntax::TextRange::of_node(&node),
                    )),
                    ty,
                );
            }
            "pointer_declarator" | "abstract_pointer_declarator" => {
                ty = Type::pointer_to(ty);
                match node.child_by_field_name("declarator") {
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = node
                    .child_by_field_name("size")
                    .and_then(|s| parse_int_literal(text(s, src)));
                ty = Type::Array(Box::new(ty), size.map(|s| s as u64));
                match node.child_by_field_name("declarator") {
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
            "function_declarator" | "abstract_function_declarator" => {
                let sig = match node.child_by_field_name("parameters") {
                    Some(p) => signature_from_params(ty, p, src, structs),
                    None => FnSig {
                        ret: ty,
                        params: vec![],
                        variadic: false,
                    },
                };
                ty = Type::Function(Box::new(sig));
                match node.child_by_field_name("declarator") {
                    // A function declarator directly inside another is not C (a function
                    // returning a function) but a macro building the name, as expat's
                    // `PREFIX(scanLt)(const ENCODING *enc, …)`: the outer list is the
                    // parameters, and `(scanLt)` the macro's argument.
                    Some(d) if d.kind() == "function_declarator" => {
                        match d.child_by_field_name("declarator") {
                            Some(name) => node = name,
                            None => return (None, ty),
                        }
                    }
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
            "init_declarator" | "attributed_declarator" => {
                match node
                    .child_by_field_name("declarator")
                    .or_else(|| node.named_child(0))
                {
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
            "parenthesized_declarator" | "abstract_parenthesized_declarator" => {
                let mut c = node.walk();
                let inner = node
                    .named_children(&mut c)
                    .find(|n| !matches!(n.kind(), "ms_call_modifier" | "attribute_specifier"));
                match inner {
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
            _ => {
                // ERROR or a macro wrapped around the declarator: look for a declarator inside.
                let mut c = node.walk();
                let inner = node
                    .named_children(&mut c)
                    .find(|n| n.kind().ends_with("declarator") || n.kind() == "identifier");
                match inner {
                    Some(d) => node = d,
                    None => return (None, ty),
                }
            }
        }
    }
    (None, ty)
}

/// Parameter types of a `parameter_list`, and whether it ends in `...`.
pub(crate) fn signature_from_params(
    ret: Type,
    params: Node,
    src: &[u8],
    structs: &mut Vec<StructDef>,
) -> FnSig {
    let mut sig = FnSig {
        ret,
        params: vec![],
        variadic: false,
    };
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        match p.kind() {
            "parameter_declaration" => {
                let base = p
                    .child_by_field_name("type")
                    .map(|t| base_type(t, src, structs))
                    .unwrap_or_default();
                let ty = match p.child_by_field_name("declarator") {
                    Some(d) => declarator_type(base, d, src, structs).1,
                    None => base,
                };
                if ty == Type::Void && p.child_by_field_name("declarator").is_none() {
                    continue; // `f(void)`
                }
                sig.params.push(adjust_param_type(ty));
            }
            "variadic_parameter" => sig.variadic = true,
            // K&R identifier lists: types come from the declarations before the body.
            "identifier" => sig.params.push(Type::Int),
            _ => {}
        }
    }
    // `...` appears as an anonymous "..." token in some grammar versions.
    let mut c = params.walk();
    if params.children(&mut c).any(|n| n.kind() == "...") {
        sig.variadic = true;
    }
    sig
}

/// Parameters of array or function type are pointers (C11 6.7.6.3).
pub(crate) fn adjust_param_type(ty: Type) -> Type {
    match ty {
        Type::Array(t, _) => Type::Pointer(t),
        Type::Function(_) => Type::pointer_to(ty),
        t => t,
    }
}

/// Parse a C integer literal (decimal, hex, octal, binary, with suffixes).
pub(crate) fn parse_int_literal(s: &str) -> Option<i64> {
    let s = s.trim().replace('\'', "");
    // tree-sitter-c folds a leading sign into the literal (`return -1;` has the literal `-1`).
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, s.strip_prefix('+').unwrap_or(&s).trim_start()),
    };
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if s.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let v = u64::from_str_radix(digits, radix).ok()? as i64;
    Some(if negative { v.wrapping_neg() } else { v })
}

/// The value of a one-character literal (`'a'`, `'\n'`); `None` for anything else.
pub(crate) fn char_literal_value(t: &str) -> Option<i64> {
    let inner = t.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    match (chars.next()?, chars.next(), chars.next()) {
        ('\\', Some(e), None) => Some(match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0' => 0,
            '\\' => 92,
            '\'' => 39,
            '"' => 34,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            _ => return None,
        }),
        (c, None, None) => Some(c as i64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_literals() {
        assert_eq!(parse_int_literal("0"), Some(0));
        assert_eq!(parse_int_literal("42UL"), Some(42));
        assert_eq!(parse_int_literal("0x1F"), Some(31));
        assert_eq!(parse_int_literal("017"), Some(15));
        assert_eq!(parse_int_literal("1.5"), None);
        assert_eq!(parse_int_literal("-1"), Some(-1));
        assert_eq!(parse_int_literal("-0x10"), Some(-16));
        assert_eq!(parse_int_literal("+7"), Some(7));
        assert_eq!(parse_int_literal("-1.5"), None);
    }

    #[test]
    fn typedef_cycles_terminate() {
        let mut env = TypeEnv::default();
        env.typedefs.insert("A".into(), Type::Named("B".into()));
        env.typedefs.insert("B".into(), Type::Named("A".into()));
        assert_eq!(env.resolve(&Type::Named("A".into())), Type::Unknown);
    }
}
