//! The compiler and the target the build model assumes: what a GCC-compatible compiler in its
//! default mode (gnu17) predefines, and which operating system and processor it compiles for.
//!
//! A project's `#ifdef _WIN32` / `#ifdef __APPLE__` / `#ifdef __QNX__` arms are decided the way
//! the compiler of one build decides them (and clangd on that machine shows them): the target's
//! own macros are defined, every other system's are undefined. Left undecided, both arms of
//! every such test were analysed and mixed along one path (a function that `exit`s on Linux
//! returned under `#ifdef __QNX__`, so its callers' leaks on the way out were reported).
//! `Target::Any` keeps the old, undecided behaviour for code written for several systems at
//! once. The target comes from the config's `target`, else from the compile command
//! (`--target=…`, a MinGW or `cl` compiler), else it is Linux on x86-64.
//!
//! Plain data: a [`CompileFlags`] in, the same flags with the predefines added out. A `-D` or
//! `-U` of any of these names in the flags wins.

use super::compile_db::CompileFlags;
use serde::{Deserialize, Serialize};

/// The system the analysed build targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// GNU/Linux on x86-64 (the default).
    #[default]
    Linux,
    /// Windows on x86-64, with a GCC-compatible compiler (MinGW-w64's predefines).
    Windows,
    /// macOS on arm64.
    Macos,
    /// FreeBSD on x86-64.
    Freebsd,
    /// No system: every system and processor test stays undecided and both arms are analysed.
    Any,
}

impl Target {
    /// The target a target triple (`x86_64-w64-mingw32`, `aarch64-apple-darwin`,
    /// `x86_64-pc-linux-gnu`) names, if it is one of these.
    pub fn from_triple(triple: &str) -> Option<Target> {
        let t = triple.to_ascii_lowercase();
        if t.contains("windows")
            || t.contains("mingw")
            || t.contains("cygwin")
            || t.contains("msvc")
        {
            Some(Target::Windows)
        } else if t.contains("darwin") || t.contains("apple") || t.contains("macos") {
            Some(Target::Macos)
        } else if t.contains("freebsd") {
            Some(Target::Freebsd)
        } else if t.contains("linux") {
            Some(Target::Linux)
        } else {
            None
        }
    }

    /// The target a compile command's own words name: `--target=T` / `-target T`, or a
    /// compiler whose name is a triple (`x86_64-w64-mingw32-gcc`) or Microsoft's (`cl`,
    /// `clang-cl`). `None` when the command does not say.
    pub fn from_arguments(args: &[String]) -> Option<Target> {
        let mut found = None;
        let mut words = args.iter().enumerate();
        while let Some((i, a)) = words.next() {
            let triple = if let Some(t) = a.strip_prefix("--target=") {
                Some(t.to_string())
            } else if a == "-target" || a == "--target" {
                words.next().map(|(_, t)| t.clone())
            } else if i == 0 && !a.starts_with('-') {
                let name = a
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or(a)
                    .to_ascii_lowercase();
                let name = name.strip_suffix(".exe").unwrap_or(&name);
                if matches!(name, "cl" | "clang-cl") {
                    found = Some(Target::Windows);
                    None
                } else {
                    Some(name.to_string())
                }
            } else {
                None
            };
            if let Some(t) = triple.as_deref().and_then(Target::from_triple) {
                found = Some(t);
            }
        }
        found
    }

    /// Macros this target's compiler defines (name, value).
    fn defined(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Target::Linux => &[
                ("__linux__", "1"),
                ("__linux", "1"),
                ("__gnu_linux__", "1"),
                ("__unix__", "1"),
                ("__unix", "1"),
                ("__ELF__", "1"),
            ],
            Target::Windows => &[
                ("_WIN32", "1"),
                ("_WIN64", "1"),
                ("__WIN32__", "1"),
                ("__WIN64__", "1"),
                ("WIN32", "1"),
                ("WIN64", "1"),
                ("__MINGW32__", "1"),
                ("__MINGW64__", "1"),
            ],
            Target::Macos => &[("__APPLE__", "1"), ("__MACH__", "1")],
            Target::Freebsd => &[
                ("__FreeBSD__", "14"),
                ("__unix__", "1"),
                ("__unix", "1"),
                ("__ELF__", "1"),
            ],
            Target::Any => &[],
        }
    }

    /// The processor's macros (name, value): x86-64 everywhere but macOS (arm64).
    fn processor(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Target::Linux | Target::Windows | Target::Freebsd => &[
                ("__x86_64__", "1"),
                ("__x86_64", "1"),
                ("__amd64__", "1"),
                ("__amd64", "1"),
            ],
            Target::Macos => &[("__aarch64__", "1"), ("__arm64__", "1")],
            Target::Any => &[],
        }
    }

    /// The data model's macros (name, value): LP64 except on Windows (LLP64); the sizes
    /// both share are [`COMMON_SIZES`].
    fn data_model(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Target::Linux | Target::Macos | Target::Freebsd => {
                &[("__LP64__", "1"), ("_LP64", "1"), ("__SIZEOF_LONG__", "8")]
            }
            Target::Windows => &[("__SIZEOF_LONG__", "4")],
            Target::Any => &[],
        }
    }

    /// Sizes and byte order every target here shares (none for `Any`).
    fn common_sizes(self) -> &'static [(&'static str, &'static str)] {
        if self == Target::Any {
            &[]
        } else {
            COMMON_SIZES
        }
    }
}

/// Pointer and integer sizes and the byte order of every 64-bit little-endian target here.
const COMMON_SIZES: &[(&str, &str)] = &[
    ("__SIZEOF_POINTER__", "8"),
    ("__SIZEOF_INT__", "4"),
    ("__SIZEOF_SHORT__", "2"),
    ("__SIZEOF_LONG_LONG__", "8"),
    ("__CHAR_BIT__", "8"),
    ("__ORDER_LITTLE_ENDIAN__", "1234"),
    ("__ORDER_BIG_ENDIAN__", "4321"),
    ("__BYTE_ORDER__", "1234"),
];

/// Every system's and processor's own predefined macros that this model knows: on a target,
/// those it does not define are undefined (as the compiler of that build has them).
const SYSTEM_MACROS: &[&str] = &[
    // Systems.
    "__linux__",
    "__linux",
    "__gnu_linux__",
    "__unix__",
    "__unix",
    "__ELF__",
    "_WIN32",
    "_WIN64",
    "__WIN32__",
    "__WIN64__",
    "WIN32",
    "WIN64",
    "__MINGW32__",
    "__MINGW64__",
    "__CYGWIN__",
    "__CYGWIN32__",
    "__MSYS__",
    "__APPLE__",
    "__MACH__",
    "__FreeBSD__",
    "__FreeBSD_kernel__",
    "__NetBSD__",
    "__OpenBSD__",
    "__DragonFly__",
    "__bsdi__",
    "__sun",
    "__sun__",
    "__SVR4",
    "__svr4__",
    "__QNX__",
    "__QNXNTO__",
    "__ANDROID__",
    "__HAIKU__",
    "__BEOS__",
    "_AIX",
    "__hpux",
    "__sgi",
    "__osf__",
    "__GNU__",
    "__minix",
    "__INTERIX",
    "__EMSCRIPTEN__",
    "__wasi__",
    "__OS2__",
    "__VMS",
    "__MVS__",
    "__DJGPP__",
    "__amigaos__",
    "__riscos__",
    "__vxworks",
    "__Fuchsia__",
    // Processors.
    "__x86_64__",
    "__x86_64",
    "__amd64__",
    "__amd64",
    "__i386__",
    "__i386",
    "__i486__",
    "__i586__",
    "__i686__",
    "_M_IX86",
    "_M_X64",
    "_M_AMD64",
    "_M_ARM",
    "_M_ARM64",
    "__arm__",
    "__thumb__",
    "__aarch64__",
    "__arm64__",
    "__powerpc__",
    "__powerpc64__",
    "__ppc__",
    "__ppc64__",
    "__PPC__",
    "__PPC64__",
    "__mips__",
    "__mips",
    "__sparc__",
    "__sparc",
    "__s390__",
    "__s390x__",
    "__riscv",
    "__ia64__",
    "__alpha__",
    "__hppa__",
    "__m68k__",
    "__sh__",
    "__loongarch__",
    "__loongarch64",
    "__wasm__",
    "__wasm32__",
    "__wasm64__",
    // Data models.
    "__LP64__",
    "_LP64",
    "__ILP32__",
    "_ILP32",
    "__SIZEOF_POINTER__",
    "__SIZEOF_LONG__",
    "__SIZEOF_INT__",
    "__SIZEOF_SHORT__",
    "__SIZEOF_LONG_LONG__",
    "__CHAR_BIT__",
    "__ORDER_LITTLE_ENDIAN__",
    "__ORDER_BIG_ENDIAN__",
    "__BYTE_ORDER__",
];

/// Adds the compiler's predefines to `flags`: GCC-compatible in its default mode, for
/// `target`. A name the flags already `-D` or `-U` keeps the flags' word.
pub fn add_predefines(flags: &mut CompileFlags, target: Target) {
    let given = |flags: &CompileFlags, name: &str| {
        flags
            .defines
            .iter()
            .any(|d| d.split(['=', '(']).next() == Some(name))
            || flags.undefines.iter().any(|u| u == name)
    };
    // A GCC-compatible compiler in its default mode (gnu17), as clang predefines it: the
    // `#ifdef __GNUC__` / `__STDC_VERSION__` arms that hold attribute macros are then decided.
    let compiler: &[(&str, &str)] = &[
        ("__GNUC__", "4"),
        ("__GNUC_MINOR__", "2"),
        ("__STDC__", "1"),
        ("__STDC_HOSTED__", "1"),
        ("__STDC_VERSION__", "201710L"),
        // What <stddef.h> defines, which is not read: `#ifdef offsetof` is decided, and a
        // project's `evutil_offsetof` takes the arm that uses it, not a hand-made
        // `((off_t)&((T *)0)->f)` whose cast the grammar cannot tell from a call.
        ("offsetof(type, member)", "__builtin_offsetof(type, member)"),
    ];
    let target_defines = [
        target.defined(),
        target.processor(),
        target.data_model(),
        target.common_sizes(),
    ];
    for &(name, value) in compiler.iter().chain(target_defines.into_iter().flatten()) {
        let key = name.split('(').next().unwrap_or(name);
        if !given(flags, key) {
            flags.defines.insert(0, format!("{name}={value}"));
        }
    }
    // Nor is it Microsoft's compiler: `#ifdef _MSC_VER` arms (`__pragma(...)`, `__declspec`)
    // are the other compiler's spelling of what the GCC arms say. And the language is C:
    // `#ifdef __cplusplus` arms (`static_cast<T>(x)`, `extern "C" {`) are for a C++ compiler
    // reading the same header.
    let mut undefined: Vec<&str> = vec!["__STRICT_ANSI__", "_MSC_VER", "__cplusplus"];
    if target != Target::Any {
        let own = |n: &str| {
            target_defines
                .iter()
                .any(|l| l.iter().any(|(d, _)| *d == n))
        };
        undefined.extend(SYSTEM_MACROS.iter().copied().filter(|n| !own(n)));
    }
    for name in undefined {
        if !given(flags, name) {
            flags.undefines.push(name.into());
        }
    }
    // `__has_attribute(x)`, as that compiler has it: 1 for the function attributes below
    // (`#if __has_attribute(noreturn)` guards many projects' attribute macros, and its
    // `#ifndef __has_attribute` fallback to 0 is then dead), unknown for any other name.
    if !given(flags, "__has_attribute") {
        flags
            .defines
            .insert(0, format!("__has_attribute(x)={HAS_ATTRIBUTE}_##x"));
        for a in KNOWN_ATTRIBUTES {
            flags.defines.insert(0, format!("{HAS_ATTRIBUTE}_{a}=1"));
            flags
                .defines
                .insert(0, format!("{HAS_ATTRIBUTE}___{a}__=1"));
        }
    }
}

/// The reserved prefix `__has_attribute(x)` pastes its argument to: a known attribute's
/// name is then a macro for 1, any other stays an unknown name (reserved, so never taken
/// for an undefined 0).
const HAS_ATTRIBUTE: &str = "__reductio_has_attribute";

/// Function and declaration attributes GCC and clang both have, which `__has_attribute`
/// answers 1 for. Statement attributes (`fallthrough`) are left out: their `#if` stays
/// undecided, as before.
const KNOWN_ATTRIBUTES: &[&str] = &[
    "noreturn",
    "malloc",
    "returns_nonnull",
    "nonnull",
    "alloc_size",
    "warn_unused_result",
    "unused",
    "used",
    "format",
    "format_arg",
    "pure",
    "const",
    "cold",
    "hot",
    "noinline",
    "always_inline",
    "deprecated",
    "visibility",
    "sentinel",
    "nothrow",
    "returns_twice",
    "weak",
    "alias",
    "aligned",
    "packed",
    "constructor",
    "destructor",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::MacroStatus::*;
    use crate::build::MacroTable;

    fn table(target: Target, flags: CompileFlags) -> MacroTable {
        let mut flags = flags;
        add_predefines(&mut flags, target);
        MacroTable::from_flags(&flags)
    }

    #[test]
    fn linux_defines_its_own_macros_and_undefines_other_systems() {
        let t = table(Target::Linux, CompileFlags::default());
        for m in [
            "__linux__",
            "__unix__",
            "__x86_64__",
            "__LP64__",
            "__GNUC__",
        ] {
            assert_eq!(t.status(m), Defined, "{m}");
        }
        for m in [
            "_WIN32",
            "WIN32",
            "__APPLE__",
            "__QNX__",
            "__aarch64__",
            "_MSC_VER",
        ] {
            assert_eq!(t.status(m), Undefined, "{m}");
        }
        // A project's own configuration macro stays unknown.
        assert_eq!(t.status("HAVE_FGETLN"), Unknown);
    }

    #[test]
    fn windows_and_macos_are_the_other_way_round() {
        let w = table(Target::Windows, CompileFlags::default());
        assert_eq!(w.status("_WIN32"), Defined);
        assert_eq!(w.status("__linux__"), Undefined);
        assert_eq!(w.status("__unix__"), Undefined);
        let m = table(Target::Macos, CompileFlags::default());
        assert_eq!(m.status("__APPLE__"), Defined);
        assert_eq!(m.status("__x86_64__"), Undefined);
        assert_eq!(m.status("_WIN32"), Undefined);
    }

    #[test]
    fn any_target_leaves_systems_undecided_and_flags_win() {
        let a = table(Target::Any, CompileFlags::default());
        assert_eq!(a.status("_WIN32"), Unknown);
        assert_eq!(a.status("__linux__"), Unknown);
        assert_eq!(a.status("__GNUC__"), Defined);
        let flags = CompileFlags {
            defines: vec!["__QNX__".into()],
            undefines: vec!["__linux__".into()],
            ..Default::default()
        };
        let t = table(Target::Linux, flags);
        assert_eq!(t.status("__QNX__"), Defined);
        assert_eq!(t.status("__linux__"), Undefined);
    }

    #[test]
    fn the_compile_command_names_its_target() {
        let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            Target::from_arguments(&args("x86_64-w64-mingw32-gcc -c a.c")),
            Some(Target::Windows)
        );
        assert_eq!(
            Target::from_arguments(&args("clang --target=aarch64-apple-darwin -c a.c")),
            Some(Target::Macos)
        );
        assert_eq!(
            Target::from_arguments(&args("clang -target x86_64-unknown-freebsd14 -c a.c")),
            Some(Target::Freebsd)
        );
        assert_eq!(
            Target::from_arguments(&args("C:/VS/bin/cl.exe /c a.c")),
            Some(Target::Windows)
        );
        assert_eq!(Target::from_arguments(&args("cc -O2 -c a.c")), None);
        assert_eq!(Target::from_arguments(&args("-DX -Iinc")), None);
    }
}
