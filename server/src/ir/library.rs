//! The C library model: what body-less library functions do with pointers.
//!
//! Two halves, read by two layers:
//! - [`LibraryModel`]: which calls allocate and which free (the C library's allocators and
//!   `free`, plus the user's configured `allocators`/`deallocators`), and the configured
//!   `noreturn` names ([`LibraryModel::never_returns`]). The lowering turns these
//!   calls into `Alloc`/`Free` statements (`ir::lower`), so the engine never sees them as calls.
//! - [`known_function`] and [`is_noreturn`]: functions that never capture or free their
//!   arguments, what they return, and functions that never return. The engine applies these at
//!   calls without a body (`probe::engine`), and `db::own_mod` uses them for MOD summaries.
//!
//! A callee that is in none of these lists and has no body is *unknown*: by default a pointer
//! passed to it escapes (the callee may keep or free it), configurable with
//! `unknown-calls-escape`.

use super::types::Type;
use rustc_hash::FxHashMap;

/// How a library or configured function allocates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AllocKind {
    /// Returns fresh memory or NULL (`malloc`, `strdup`…).
    Returns,
    /// Returns fresh memory and frees the old block `ptr_arg` on success; on failure returns
    /// NULL and the old block is untouched (`realloc`).
    Realloc { ptr_arg: u32 },
    /// Stores fresh memory through pointer argument `arg` and returns `success`; on failure
    /// returns `failure` and stores nothing (`posix_memalign`, `asprintf`). A `success` of
    /// `None` is a value we do not track; a `failure` of `None` is a nonzero value we do not
    /// track (`getaddrinfo`'s `EAI_*` codes).
    OutParam {
        arg: u32,
        success: Option<i64>,
        failure: Option<i64>,
    },
    /// Reallocates the block `*arg` points to, or allocates one when it is NULL, and stores the
    /// result back through `arg`; writes a count through `size_arg`; returns a count or -1
    /// whether or not it allocated (`getline`, `getdelim`: glibc allocates the buffer even
    /// when the first read hits end of file, and the caller must free it).
    ReallocThrough { arg: u32, size_arg: u32 },
}

/// Which calls allocate and which free: the C library plus the user's configured names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryModel {
    pub allocators: FxHashMap<String, AllocKind>,
    /// Deallocator name → index of the freed argument.
    pub deallocators: FxHashMap<String, u32>,
    /// The user's configured `noreturn` names (sorted): functions that never return, with or
    /// without a body (on top of the C library's, [`is_noreturn`]).
    pub noreturn: Vec<String>,
    /// Functions the program's headers declare `noreturn` (the build model reads them): a
    /// call to one ends its path in the lowering. The C library's are [`is_noreturn`].
    pub declared_noreturn: rustc_hash::FxHashSet<String>,
    /// Functions the program's headers declare `__attribute__((returns_nonnull))`: a result
    /// the lowering stores is not NULL.
    pub declared_returns_nonnull: rustc_hash::FxHashSet<String>,
    /// Functions declared `__attribute__((nonnull(i, …)))`: the 0-based parameters their
    /// callers never pass NULL (empty: every pointer parameter). The lowering of the
    /// function's own body assumes them non-null at its entry.
    pub declared_nonnull: FxHashMap<String, Vec<u32>>,
}

impl Default for LibraryModel {
    fn default() -> Self {
        Self::standard()
    }
}

impl LibraryModel {
    /// The C library's allocators and `free`.
    pub fn standard() -> Self {
        let mut allocators = FxHashMap::default();
        for name in [
            "malloc",
            "calloc",
            "aligned_alloc",
            "memalign",
            "valloc",
            "pvalloc",
            "strdup",
            "strndup",
            "wcsdup",
        ] {
            allocators.insert(name.to_string(), AllocKind::Returns);
        }
        for name in ["realloc", "reallocarray"] {
            allocators.insert(name.to_string(), AllocKind::Realloc { ptr_arg: 0 });
        }
        allocators.insert(
            "posix_memalign".into(),
            AllocKind::OutParam {
                arg: 0,
                success: Some(0),
                failure: Some(12), // ENOMEM
            },
        );
        for name in ["asprintf", "vasprintf"] {
            allocators.insert(
                name.to_string(),
                AllocKind::OutParam {
                    arg: 0,
                    success: None,
                    failure: Some(-1),
                },
            );
        }
        // Lists the C library builds for its caller, released by their own function:
        // `getaddrinfo(node, service, hints, &res)` returns 0 and stores the list in `*res`,
        // or an `EAI_*` code (nonzero) and stores nothing; `getifaddrs(&ifap)` returns 0 or -1.
        allocators.insert(
            "getaddrinfo".into(),
            AllocKind::OutParam {
                arg: 3,
                success: Some(0),
                failure: None,
            },
        );
        allocators.insert(
            "getifaddrs".into(),
            AllocKind::OutParam {
                arg: 0,
                success: Some(0),
                failure: Some(-1),
            },
        );
        for name in ["getline", "getdelim"] {
            allocators.insert(
                name.to_string(),
                AllocKind::ReallocThrough {
                    arg: 0,
                    size_arg: 1,
                },
            );
        }
        let mut deallocators = FxHashMap::default();
        deallocators.insert("free".to_string(), 0);
        // The C library's other releases of what it allocates: `fopen`'s `FILE` (a block glibc
        // mallocs, which LeakSanitizer reports when it is lost), `opendir`'s `DIR`, `popen`'s
        // stream. A function declared `__attribute__((malloc))` that returns one (freerdp's
        // `winpr_fopen`) is released by these.
        for name in [
            "fclose",
            "closedir",
            "pclose",
            "freeaddrinfo",
            "freeifaddrs",
        ] {
            deallocators.insert(name.to_string(), 0);
        }
        LibraryModel {
            allocators,
            deallocators,
            noreturn: Vec::new(),
            declared_noreturn: Default::default(),
            declared_returns_nonnull: Default::default(),
            declared_nonnull: Default::default(),
        }
    }

    /// The standard model plus user-configured allocator and deallocator names (a configured
    /// allocator returns fresh memory; a configured deallocator frees its first argument).
    pub fn with_user(allocators: &[String], deallocators: &[String]) -> Self {
        let mut m = Self::standard();
        for a in allocators {
            m.allocators.insert(a.clone(), AllocKind::Returns);
        }
        for d in deallocators {
            m.deallocators.insert(d.clone(), 0);
        }
        m
    }

    /// [`Self::with_user`] plus the configured `noreturn` names.
    pub fn with_noreturn(mut self, noreturn: &[String]) -> Self {
        self.noreturn = noreturn.to_vec();
        self.noreturn.sort_unstable();
        self.noreturn.dedup();
        self
    }

    /// Whether the user configured `name` as never returning (`noreturn` in `reductio.toml`).
    pub fn configured_noreturn(&self, name: &str) -> bool {
        self.noreturn
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }

    /// Whether a call of `name` never returns by the model alone: the C library's
    /// [`is_noreturn`] functions and the configured ones. (A project function may also be
    /// found never to return from its body: `db::never_returning`.)
    pub fn never_returns(&self, name: &str) -> bool {
        is_noreturn(name) || self.configured_noreturn(name) || self.declared_noreturn.contains(name)
    }

    /// Whether the model says anything about calls of `name`: an allocator, a deallocator, a
    /// function that never returns, or a known function that captures nothing.
    pub fn knows(&self, name: &str) -> bool {
        self.allocators.contains_key(name)
            || self.deallocators.contains_key(name)
            || self.never_returns(name)
            || known_function(name).is_some()
    }

    /// A function declared `__attribute__((malloc))`: returns fresh memory (configured names
    /// and the C library's own kinds win).
    pub fn declare_allocator(&mut self, name: &str) {
        self.allocators
            .entry(name.to_string())
            .or_insert(AllocKind::Returns);
    }

    /// A deallocator named by `__attribute__((malloc(name, index)))`: frees argument `arg`
    /// (0-based).
    pub fn declare_deallocator(&mut self, name: &str, arg: usize) {
        self.deallocators
            .entry(name.to_string())
            .or_insert(arg.min(u32::MAX as usize) as u32);
    }

    /// A function declared `noreturn` (`_Noreturn`, `__attribute__((noreturn))`, …).
    pub fn declare_noreturn(&mut self, name: &str) {
        if !is_noreturn(name) {
            self.declared_noreturn.insert(name.to_string());
        }
    }

    /// A function declared `__attribute__((returns_nonnull))`.
    pub fn declare_returns_nonnull(&mut self, name: &str) {
        self.declared_returns_nonnull.insert(name.to_string());
    }

    /// A function declared `__attribute__((nonnull(…)))` with these 1-based argument
    /// positions (none: every pointer parameter).
    pub fn declare_nonnull(&mut self, name: &str, positions: &[u32]) {
        let mut params: Vec<u32> = positions
            .iter()
            .filter(|&&p| p >= 1)
            .map(|p| p - 1)
            .collect();
        params.sort_unstable();
        params.dedup();
        if positions.is_empty() || !params.is_empty() {
            self.declared_nonnull.insert(name.to_string(), params);
        }
    }

    /// Return type of a library allocator (they all return `void*` or `char*` or `int`).
    pub(crate) fn alloc_return_type(&self, name: &str) -> Option<Type> {
        match self.allocators.get(name)? {
            AllocKind::OutParam { .. } => Some(Type::Int),
            _ if name.contains("str") => Some(Type::pointer_to(Type::Int)),
            _ => Some(Type::pointer_to(Type::Void)),
        }
    }
}

/// What a body-less library call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// A number, or nothing.
    Number,
    /// Its first argument (`memcpy`, `strcpy`).
    FirstArgument,
    /// A pointer into its first argument's block, or NULL (`strchr`, `strstr`, `strtok`).
    IntoFirstArgument,
    /// Static or library-owned memory, never a heap block the program must free, or NULL
    /// (`getenv`, `fopen`).
    StaticMemory,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    pub returns: Returns,
    /// The arguments it writes through, by position: the first for `memcpy`, `memset`,
    /// `sprintf`, `fread`; the second for `read(fd, buf, n)`, `recv`, `readlink`, `stat`,
    /// `strtol`'s end pointer.
    pub writes: &'static [usize],
    /// It also writes through every argument from this position on (`scanf`'s results).
    pub writes_from: Option<usize>,
}

impl Known {
    /// Whether it writes through its argument number `i`.
    pub fn writes_argument(&self, i: usize) -> bool {
        self.writes.contains(&i) || self.writes_from.is_some_and(|k| i >= k)
    }

    /// Whether it writes through any of its arguments.
    pub fn writes_any(&self) -> bool {
        !self.writes.is_empty() || self.writes_from.is_some()
    }
}

const fn known(returns: Returns, writes: &'static [usize]) -> Known {
    Known {
        returns,
        writes,
        writes_from: None,
    }
}

const fn known_from(returns: Returns, from: usize) -> Known {
    Known {
        returns,
        writes: &[],
        writes_from: Some(from),
    }
}

/// The program's global variables a library function sets: `getopt`'s `optind`, `optarg`;
/// `errno`, which `strtol(…)` sets on overflow and a caller tests after `errno = 0`.
pub fn written_globals(name: &str) -> &'static [&'static str] {
    match name {
        "getopt" | "getopt_long" | "getopt_long_only" => {
            &["optarg", "optind", "opterr", "optopt", "errno"]
        }
        "strtol" | "strtoul" | "strtoll" | "strtoull" | "strtod" | "strtof" | "strtold"
        | "strtoimax" | "strtoumax" | "atoi" | "atol" | "atoll" | "atof" => &["errno"],
        _ => &[],
    }
}

/// A known library function that neither captures nor frees its arguments.
pub fn known_function(name: &str) -> Option<Known> {
    use Returns::*;
    Some(match name {
        "memcpy" | "memmove" | "memset" | "strcpy" | "strncpy" | "strcat" | "strncat"
        | "stpcpy" | "stpncpy" | "wmemcpy" | "wmemset" | "wcscpy" | "wcscat" | "bzero_ret" => {
            known(FirstArgument, &[0])
        }
        "strchr" | "strrchr" | "strstr" | "strpbrk" | "memchr" | "memrchr" | "strcasestr"
        | "strtok" | "strtok_r" | "strsep" | "basename" | "wcschr" | "wcsrchr" | "wcsstr" => {
            known(IntoFirstArgument, &[])
        }
        "getenv" | "secure_getenv" | "strerror" | "ctime" | "asctime" | "localtime" | "gmtime"
        | "setlocale" | "localeconv" | "__errno_location" | "getpwnam" | "getpwuid"
        | "getgrnam" | "getgrgid" | "gethostbyname" | "inet_ntoa" | "ttyname" | "dlerror"
        | "nl_langinfo" | "strsignal" | "getlogin" | "tmpnam" | "dlsym" | "dlopen" | "readdir"
        | "gai_strerror" | "fopen" | "fdopen" | "freopen" | "popen" | "tmpfile" | "opendir" => {
            known(StaticMemory, &[])
        }
        "sprintf" | "snprintf" | "vsprintf" | "vsnprintf" | "fgets" | "fread" | "bzero"
        | "explicit_bzero" | "strftime" | "gets" | "getcwd" | "memccpy" | "strxfrm"
        | "sscanf_write" => known(Number, &[0]),
        // The buffer is the second argument: `read(fd, buf, n)`, `readlink(path, buf, n)`,
        // `realpath(path, resolved)`; `recvfrom` also fills the address and its length.
        "read" | "pread" | "recv" | "readlink" | "realpath" => known(Number, &[1]),
        "recvfrom" => known(Number, &[1, 4, 5]),
        // Compiler pragmas in statement position (C99's `_Pragma`, MSVC's `__pragma`): no
        // effect at run time.
        "_Pragma" | "__pragma" => known(Number, &[]),
        "strlen" | "strnlen" | "strcmp" | "strncmp" | "strcasecmp" | "strncasecmp" | "memcmp"
        | "strcoll" | "strspn" | "strcspn" | "printf" | "fprintf" | "vprintf" | "vfprintf"
        | "dprintf" | "puts" | "fputs" | "fputc" | "putc" | "putchar" | "fwrite" | "write"
        | "send" | "sendto" | "perror" | "fflush" | "fclose" | "pclose" | "closedir" | "fseek"
        | "ftell" | "rewind" | "feof" | "ferror" | "clearerr" | "fileno" | "getc" | "fgetc"
        | "getchar" | "ungetc" | "atoi" | "atol" | "atoll" | "atof" | "abs" | "labs" | "llabs"
        | "isalpha" | "isdigit" | "isalnum" | "isspace" | "isupper" | "islower" | "isprint"
        | "ispunct" | "isxdigit" | "iscntrl" | "isgraph" | "toupper" | "tolower" | "open"
        | "close" | "access" | "unlink" | "remove" | "rename" | "mkdir" | "rmdir" | "chdir"
        | "clock" | "sleep" | "usleep" | "rand" | "srand" | "random" | "srandom" | "bsearch"
        | "assert" | "signal" | "raise" | "kill" | "getpid" | "getppid" | "fork" | "dup"
        | "dup2" | "isatty" | "setvbuf" | "setbuf" | "va_end" | "__builtin_va_end" | "htons"
        | "htonl" | "ntohs" | "ntohl" | "sqrt" | "pow" | "floor" | "ceil" | "fabs" | "log"
        | "exp" | "sin" | "cos" | "tan" | "atan2" | "fmod" | "round" | "getopt" | "sysconf"
        | "__builtin_expect" | "fsync" | "ftruncate" | "lseek" | "mmap" | "munmap" | "socket"
        | "connect" | "bind" | "listen" | "shutdown" | "setsockopt" | "fputws" | "wcslen"
        | "wcscmp" | "mblen" | "iswspace" | "iswalpha" => known(Number, &[]),
        // Functions that store results through pointer arguments.
        "strtol" | "strtoul" | "strtoll" | "strtoull" | "strtod" | "strtof" | "strtold"
        | "strtoimax" | "strtoumax" | "stat" | "fstat" | "lstat" | "clock_gettime" | "waitpid" => {
            known(Number, &[1])
        }
        "sscanf" | "fscanf" | "ioctl" | "fcntl" => known_from(Number, 2),
        "scanf" => known_from(Number, 1),
        "time"
        | "wait"
        | "pipe"
        | "qsort"
        | "va_start"
        | "va_copy"
        | "__builtin_va_start"
        | "__builtin_va_copy"
        | "pthread_mutex_lock"
        | "pthread_mutex_unlock"
        | "pthread_mutex_init"
        | "pthread_mutex_destroy"
        | "setjmp"
        | "_setjmp"
        | "sigsetjmp"
        | "poll"
        | "mbtowc"
        | "wctomb"
        | "mbstowcs"
        | "wcstombs"
        | "memset_s" => known(Number, &[0]),
        "gettimeofday" => known(Number, &[0, 1]),
        "getopt_long" => known(Number, &[4]),
        "select" => known(Number, &[1, 2, 3, 4]),
        "accept" => known(Number, &[1, 2]),
        "getsockopt" => known(Number, &[3, 4]),
        "inet_pton" | "inet_ntop" | "sigaction" => known(Number, &[2]),

        _ => return None,
    })
}

/// Functions that never return: a path through them cannot reach the probe.
pub fn is_noreturn(name: &str) -> bool {
    matches!(
        name,
        "exit"
            | "_exit"
            | "_Exit"
            | "quick_exit"
            | "abort"
            | "longjmp"
            | "siglongjmp"
            | "_longjmp"
            | "__assert_fail"
            | "__assert_rtn"
            | "__builtin_unreachable"
            | "__builtin_trap"
            | "err"
            | "errx"
            | "verr"
            | "verrx"
            | "pthread_exit"
            | "thrd_exit"
    )
}

/// The value of a constant the C library's headers define, which the analysis does not parse:
/// the `<errno.h>` codes (Linux's values; every one is positive, which is what `return
/// -EINVAL;` and `if (rc < 0)` depend on), `<netdb.h>`'s `EAI_*` codes (glibc's values; every
/// one is nonzero, which is what `if (rc == EAI_AGAIN)` after a `getaddrinfo` that returns 0 on
/// success depends on), `EOF`, `EXIT_SUCCESS` and `EXIT_FAILURE`. Read only for a name the
/// workspace does not define.
/// Whether the C library allocator `name` returns zeroed memory (`calloc`): every read of
/// the new block is 0 until something is stored.
pub fn zeroes_memory(name: &str) -> bool {
    name == "calloc"
}

/// Whether the C library allocator `name` returns a block nothing has stored into: zero bytes
/// (`calloc`), indeterminate bytes (`malloc`) or a copy of characters (`strdup`), so no
/// location of it holds a reference when it is handed out. Not `realloc` (it copies the old
/// block, pointers included), `getline` (it reallocates), nor a configured allocator (a pool's
/// `obj_new` may return an object already initialised, a list head pointing to itself).
pub fn fresh_contents(name: &str) -> bool {
    matches!(
        name,
        "malloc"
            | "calloc"
            | "aligned_alloc"
            | "memalign"
            | "valloc"
            | "pvalloc"
            | "strdup"
            | "strndup"
            | "wcsdup"
            | "posix_memalign"
            | "asprintf"
            | "vasprintf"
    )
}

pub fn known_constant(name: &str) -> Option<i64> {
    const ERRNO: &[(&str, i64)] = &[
        ("EPERM", 1),
        ("ENOENT", 2),
        ("ESRCH", 3),
        ("EINTR", 4),
        ("EIO", 5),
        ("ENXIO", 6),
        ("E2BIG", 7),
        ("ENOEXEC", 8),
        ("EBADF", 9),
        ("ECHILD", 10),
        ("EAGAIN", 11),
        ("EWOULDBLOCK", 11),
        ("ENOMEM", 12),
        ("EACCES", 13),
        ("EFAULT", 14),
        ("ENOTBLK", 15),
        ("EBUSY", 16),
        ("EEXIST", 17),
        ("EXDEV", 18),
        ("ENODEV", 19),
        ("ENOTDIR", 20),
        ("EISDIR", 21),
        ("EINVAL", 22),
        ("ENFILE", 23),
        ("EMFILE", 24),
        ("ENOTTY", 25),
        ("ETXTBSY", 26),
        ("EFBIG", 27),
        ("ENOSPC", 28),
        ("ESPIPE", 29),
        ("EROFS", 30),
        ("EMLINK", 31),
        ("EPIPE", 32),
        ("EDOM", 33),
        ("ERANGE", 34),
        ("EDEADLK", 35),
        ("ENAMETOOLONG", 36),
        ("ENOLCK", 37),
        ("ENOSYS", 38),
        ("ENOTEMPTY", 39),
        ("ELOOP", 40),
        ("ENOMSG", 42),
        ("EIDRM", 43),
        ("ENOSTR", 60),
        ("ENODATA", 61),
        ("ETIME", 62),
        ("ENOSR", 63),
        ("ENOLINK", 67),
        ("EPROTO", 71),
        ("EBADMSG", 74),
        ("EOVERFLOW", 75),
        ("EILSEQ", 84),
        ("EUSERS", 87),
        ("ENOTSOCK", 88),
        ("EDESTADDRREQ", 89),
        ("EMSGSIZE", 90),
        ("EPROTOTYPE", 91),
        ("ENOPROTOOPT", 92),
        ("EPROTONOSUPPORT", 93),
        ("ESOCKTNOSUPPORT", 94),
        ("EOPNOTSUPP", 95),
        ("ENOTSUP", 95),
        ("EPFNOSUPPORT", 96),
        ("EAFNOSUPPORT", 97),
        ("EADDRINUSE", 98),
        ("EADDRNOTAVAIL", 99),
        ("ENETDOWN", 100),
        ("ENETUNREACH", 101),
        ("ENETRESET", 102),
        ("ECONNABORTED", 103),
        ("ECONNRESET", 104),
        ("ENOBUFS", 105),
        ("EISCONN", 106),
        ("ENOTCONN", 107),
        ("ESHUTDOWN", 108),
        ("ETOOMANYREFS", 109),
        ("ETIMEDOUT", 110),
        ("ECONNREFUSED", 111),
        ("EHOSTDOWN", 112),
        ("EHOSTUNREACH", 113),
        ("EALREADY", 114),
        ("EINPROGRESS", 115),
        ("ESTALE", 116),
        ("EDQUOT", 122),
        ("ECANCELED", 125),
        ("ENOKEY", 126),
        ("EKEYEXPIRED", 127),
        ("EKEYREVOKED", 128),
        ("EKEYREJECTED", 129),
        ("EOWNERDEAD", 130),
        ("ENOTRECOVERABLE", 131),
        ("ERFKILL", 132),
        ("EHWPOISON", 133),
        ("ENOMEDIUM", 123),
        ("EMEDIUMTYPE", 124),
    ];
    // `<netdb.h>`'s `getaddrinfo` codes as glibc numbers them (all nonzero on every system).
    const EAI: &[(&str, i64)] = &[
        ("EAI_BADFLAGS", -1),
        ("EAI_NONAME", -2),
        ("EAI_AGAIN", -3),
        ("EAI_FAIL", -4),
        ("EAI_NODATA", -5),
        ("EAI_FAMILY", -6),
        ("EAI_SOCKTYPE", -7),
        ("EAI_SERVICE", -8),
        ("EAI_ADDRFAMILY", -9),
        ("EAI_MEMORY", -10),
        ("EAI_SYSTEM", -11),
        ("EAI_OVERFLOW", -12),
    ];
    match name {
        "EOF" => Some(-1),
        "EXIT_SUCCESS" => Some(0),
        "EXIT_FAILURE" => Some(1),
        _ => ERRNO
            .iter()
            .chain(EAI)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v),
    }
}
