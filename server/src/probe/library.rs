//! What the C library does with pointers, for calls without a body.
//!
//! Allocators and `free` are modelled in the IR (see `ir::LibraryModel`). Here: functions that
//! never capture or free their arguments, what they return, and functions that never return.
//! A callee that is in none of these lists and has no body is *unknown*: by default a pointer
//! passed to it escapes (the callee may keep or free it), configurable with
//! `unknown-calls-escape`.

/// What a body-less library call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// A number, or nothing.
    Number,
    /// Its first argument, or a pointer into it (`memcpy`, `strcpy`, `strchr`).
    FirstArgument,
    /// Static or library-owned memory, never a heap block the program must free (`getenv`).
    StaticMemory,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    pub returns: Returns,
    /// Writes through its first argument (`memcpy`, `memset`, `sprintf`, `fread`).
    pub writes_first_argument: bool,
}

const fn known(returns: Returns, writes_first_argument: bool) -> Known {
    Known {
        returns,
        writes_first_argument,
    }
}

/// A known library function that neither captures nor frees its arguments.
pub fn known_function(name: &str) -> Option<Known> {
    use Returns::*;
    Some(match name {
        "memcpy" | "memmove" | "memset" | "strcpy" | "strncpy" | "strcat" | "strncat"
        | "stpcpy" | "stpncpy" | "wmemcpy" | "wmemset" | "wcscpy" | "wcscat" | "bzero_ret" => {
            known(FirstArgument, true)
        }
        "strchr" | "strrchr" | "strstr" | "strpbrk" | "memchr" | "memrchr" | "strcasestr"
        | "strtok" | "strtok_r" | "strsep" | "basename" | "wcschr" | "wcsrchr" | "wcsstr" => {
            known(FirstArgument, false)
        }
        "getenv" | "secure_getenv" | "strerror" | "ctime" | "asctime" | "localtime" | "gmtime"
        | "setlocale" | "localeconv" | "__errno_location" | "getpwnam" | "getpwuid"
        | "getgrnam" | "getgrgid" | "gethostbyname" | "inet_ntoa" | "ttyname" | "dlerror"
        | "nl_langinfo" | "strsignal" | "getlogin" | "tmpnam" | "dlsym" | "dlopen" | "readdir"
        | "fopen" | "fdopen" | "freopen" | "popen" | "tmpfile" | "opendir" => {
            known(StaticMemory, false)
        }
        "sprintf" | "snprintf" | "vsprintf" | "vsnprintf" | "fgets" | "fread" | "read"
        | "pread" | "recv" | "recvfrom" | "bzero" | "explicit_bzero" | "strftime" | "gets"
        | "getcwd" | "realpath" | "readlink" | "memccpy" | "strxfrm" | "sscanf_write" => {
            known(Number, true)
        }
        "strlen"
        | "strnlen"
        | "strcmp"
        | "strncmp"
        | "strcasecmp"
        | "strncasecmp"
        | "memcmp"
        | "strcoll"
        | "strspn"
        | "strcspn"
        | "printf"
        | "fprintf"
        | "vprintf"
        | "vfprintf"
        | "dprintf"
        | "puts"
        | "fputs"
        | "fputc"
        | "putc"
        | "putchar"
        | "fwrite"
        | "write"
        | "send"
        | "sendto"
        | "perror"
        | "fflush"
        | "fclose"
        | "pclose"
        | "closedir"
        | "fseek"
        | "ftell"
        | "rewind"
        | "feof"
        | "ferror"
        | "clearerr"
        | "fileno"
        | "getc"
        | "fgetc"
        | "getchar"
        | "ungetc"
        | "atoi"
        | "atol"
        | "atoll"
        | "atof"
        | "strtol"
        | "strtoul"
        | "strtoll"
        | "strtoull"
        | "strtod"
        | "strtof"
        | "strtold"
        | "abs"
        | "labs"
        | "llabs"
        | "isalpha"
        | "isdigit"
        | "isalnum"
        | "isspace"
        | "isupper"
        | "islower"
        | "isprint"
        | "ispunct"
        | "isxdigit"
        | "iscntrl"
        | "isgraph"
        | "toupper"
        | "tolower"
        | "sscanf"
        | "fscanf"
        | "scanf"
        | "open"
        | "close"
        | "stat"
        | "fstat"
        | "lstat"
        | "access"
        | "unlink"
        | "remove"
        | "rename"
        | "mkdir"
        | "rmdir"
        | "chdir"
        | "time"
        | "clock"
        | "gettimeofday"
        | "clock_gettime"
        | "sleep"
        | "usleep"
        | "rand"
        | "srand"
        | "random"
        | "srandom"
        | "qsort"
        | "bsearch"
        | "assert"
        | "signal"
        | "sigaction"
        | "raise"
        | "kill"
        | "getpid"
        | "getppid"
        | "fork"
        | "wait"
        | "waitpid"
        | "pipe"
        | "dup"
        | "dup2"
        | "isatty"
        | "setvbuf"
        | "setbuf"
        | "va_start"
        | "va_end"
        | "va_copy"
        | "__builtin_va_start"
        | "__builtin_va_end"
        | "__builtin_va_copy"
        | "pthread_mutex_lock"
        | "pthread_mutex_unlock"
        | "pthread_mutex_init"
        | "pthread_mutex_destroy"
        | "strtoimax"
        | "strtoumax"
        | "htons"
        | "htonl"
        | "ntohs"
        | "ntohl"
        | "sqrt"
        | "pow"
        | "floor"
        | "ceil"
        | "fabs"
        | "log"
        | "exp"
        | "sin"
        | "cos"
        | "tan"
        | "atan2"
        | "fmod"
        | "round"
        | "memset_s"
        | "getopt"
        | "getopt_long"
        | "sysconf"
        | "setjmp"
        | "_setjmp"
        | "sigsetjmp"
        | "__builtin_expect"
        | "fsync"
        | "ftruncate"
        | "lseek"
        | "mmap"
        | "munmap"
        | "ioctl"
        | "fcntl"
        | "select"
        | "poll"
        | "socket"
        | "connect"
        | "bind"
        | "listen"
        | "accept"
        | "shutdown"
        | "setsockopt"
        | "getsockopt"
        | "inet_pton"
        | "inet_ntop"
        | "fputws"
        | "wcslen"
        | "wcscmp"
        | "mblen"
        | "mbtowc"
        | "wctomb"
        | "mbstowcs"
        | "wcstombs"
        | "iswspace"
        | "iswalpha" => known(Number, false),
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
