/*
 * Ground-truth oracle for the paper fixtures (test-fixtures/paper/NAME.c): does the routine leak
 * for SOME input heap?  Decided by running it on many small random heaps under LeakSanitizer.
 *
 * An adapter (one per fixture, e.g. sr-append.c) includes prelude.h, the fixture itself, then
 * defines the description below and includes this file:
 *
 *   ROUTINE            the fixture's name, a string
 *   NODE               the fixture's struct type
 *   SHAPE              SHAPE_LIST, SHAPE_DLIST or SHAPE_TREE: the well-formed shape the
 *                      structured generator builds (pointer field 0 is next / left, 1 is
 *                      prev / right)
 *   PTR_FIELDS(X)      X(field) for each pointer field of NODE (all of type NODE *)
 *   INT_FIELDS(X)      X(field, rule) for each int field; rule: RULE_RANDOM, RULE_KEY (sorted
 *                      along a list, in-order in a tree), RULE_HEIGHT (tree height),
 *                      RULE_ZERO; rules are applied to half of the structured heaps only
 *   PTR_ARGS(X)        X(name) for each pointer argument (they come first in the call)
 *   INT_ARGS(X)        X(name) for each int argument
 *   ENTRIES(X)         X(name) for each entry function (a routine with no caller in the file)
 *   CALL(e, p, k)      the call of entry number e with pointer args p[] and int args k[]
 *   ARG_ROOTS          optional bitmask: pointer arguments that stay roots after the call
 *                      (default 0: the only root after the call is the returned pointer)
 *
 * One trial:
 *   - a heap of 1..MAX_NODES nodes, every pointer field NULL or pointing to a node, every int
 *     field in VAL_MIN..VAL_MAX; arguments: nodes or NULL, ints in the same range (half of the
 *     time copied from a node's int field).  Half of the heaps are random graphs; the other
 *     half are well-formed lists / doubly-linked lists / trees (one per pointer argument, with
 *     sorted keys and exact heights half of the time) with 0..2 random fields overwritten.
 *     Now and then one of the routine's first malloc calls fails (returns NULL).
 *   - the nodes not reachable from the pointer arguments are freed before the call;
 *   - the routine is called; its result is stored in a global (the root), the stack is wiped
 *     and __lsan_do_recoverable_leak_check() says whether some block is unreachable from the
 *     roots: a leak.
 *
 * Two kinds of leaks are told apart.  A REFERENCING leak (the model of the paper and of the
 * fixtures' expectations, test-fixtures/README.md) leaves a block that nothing references any
 * more: some statement lost its last reference.  A CYCLE-ONLY leak leaves unreachable blocks
 * each of which is still referenced by an unreachable block, itself included (a garbage
 * cycle, e.g. a node whose field points to itself, and what hangs off it): a leak for
 * LeakSanitizer, but no statement loses a last reference, so the referencing model does not
 * count it.  LeakSanitizer reports a leaked block that no OTHER leaked block points to as a
 * "Direct leak" (it ignores pointers to self), the others as "Indirect leak"s; the child
 * captures its report (fd 2 is a temporary file) and looks for "Direct leak".
 *
 * Cross-check: a BFS from the roots over the pointer fields of the blocks the driver knows
 * (input nodes and blocks the routine allocated, minus those it freed) gives the unreachable
 * blocks, those no other allocated block points to, and those no allocated block points to,
 * themselves included.  LeakSanitizer and the BFS must agree on the first two (any leak? any
 * direct leak?); the third, which decides the kind, is the BFS's alone, and differs from the
 * second only by pointers to self.

 * Non-terminating trials are discarded, not counted as leaks: every basic block of the
 * translation unit is instrumented (-fsanitize-coverage=trace-pc) and the hook escapes the
 * call (siglongjmp) after STEP_LIMIT blocks or when the stack grew by STACK_LIMIT bytes.  A
 * NULL dereference (SIGSEGV) escapes the same way.  alarm(1) per trial is a safety net.
 * Any other crash (an AddressSanitizer error such as a use after free) kills the child
 * process: the parent counts the trial as discarded and forks a new child for the next one.
 *
 * Trials run in forked children, many per child: after each trial the child frees every
 * block that is still allocated, so the next leak check sees only the next trial's blocks.
 * The driver keeps node addresses XORed with HIDE, the roots are globals, LeakSanitizer is
 * told not to scan stacks and registers, and the stack is wiped before the check anyway: no
 * stale copy of a pointer can hide a leak.  Every trial is generated from (seed, trial
 * number) by xorshift64*, so runs are reproducible.
 *
 * Compile: gcc -fsanitize=address -fsanitize-coverage=trace-pc -g -O0 ADAPTER.c -o driver
 * Run:     ./driver [TRIALS [WITNESSES [SEED]]]   (default 2000, 3, a hash of ROUTINE)
 *          stdout: per kind of leak, the smallest witnesses of distinct shapes (WITNESS ...
 *          END), the first trial on which LeakSanitizer and the BFS disagree (MISMATCH ...
 *          END), and a SUMMARY line.
 *          PAPER_INPUTS_VERBOSE=1 copies LeakSanitizer's reports to stderr.
 */
#undef malloc
#undef free

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sanitizer/lsan_interface.h>

#ifndef ARG_ROOTS
#define ARG_ROOTS 0u
#endif

enum { RULE_RANDOM, RULE_KEY, RULE_HEIGHT, RULE_ZERO };
enum { SHAPE_LIST, SHAPE_DLIST, SHAPE_TREE };

#define MAX_NODES 5
#define VAL_MIN (-2)
#define VAL_MAX 5
#define MAX_BLOCKS 64
#define STEP_LIMIT 100000UL
#define STACK_LIMIT (256L * 1024)
#define MAX_WITNESSES 16
#define POST_CAP 2048

/* XORed into every node address the driver keeps, so that LeakSanitizer does not see them. */
#define HIDE ((uintptr_t)0xa5c35a3c96e1f00fULL)

typedef NODE Node;

/* ---- the description, derived from the adapter's macros ------------------------------- */

#define ONE(name) +1
#define ONE2(name, rule) +1
enum {
    N_PTR_FIELDS = 0 PTR_FIELDS(ONE),
    N_INT_FIELDS = 0 INT_FIELDS(ONE2),
    N_PTR_ARGS = 0 PTR_ARGS(ONE),
    N_INT_ARGS = 0 INT_ARGS(ONE),
    N_ENTRIES = 0 ENTRIES(ONE),
};
#define NAME(name) #name,
#define NAME2(name, rule) #name,
#define PTR_OFF(name) offsetof(Node, name),
#define INT_OFF(name, rule) offsetof(Node, name),
#define RULE(name, rule) rule,
static const size_t ptr_off[] = {PTR_FIELDS(PTR_OFF) 0};
static const char *const ptr_name[] = {PTR_FIELDS(NAME) ""};
static const size_t int_off[] = {INT_FIELDS(INT_OFF) 0};
static const char *const int_name[] = {INT_FIELDS(NAME2) ""};
static const int int_rule[] = {INT_FIELDS(RULE) 0};
static const char *const ptr_arg_name[] = {PTR_ARGS(NAME) ""};
static const char *const int_arg_name[] = {INT_ARGS(NAME) ""};
static const char *const entry_name[] = {ENTRIES(NAME) ""};

#define CHECK_PTR(name)                                                                   \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((Node *)0)->name), Node *),    \
                   #name " must be a pointer to the node type");
#define CHECK_INT(name, rule)                                                             \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((Node *)0)->name), int),       \
                   #name " must be an int");
PTR_FIELDS(CHECK_PTR)
INT_FIELDS(CHECK_INT)
_Static_assert(N_ENTRIES >= 1, "at least one entry");

static Node *get_ptr(const Node *n, int f)
{
    Node *v;
    memcpy(&v, (const char *)n + ptr_off[f], sizeof v);
    return v;
}

static void set_ptr(Node *n, int f, Node *v)
{
    memcpy((char *)n + ptr_off[f], &v, sizeof v);
}

static int get_int(const Node *n, int f)
{
    int v;
    memcpy(&v, (const char *)n + int_off[f], sizeof v);
    return v;
}

static void set_int(Node *n, int f, int v)
{
    memcpy((char *)n + int_off[f], &v, sizeof v);
}

/* ---- trials ------------------------------------------------------------------------- */

typedef struct {
    int n;                              /* nodes n0 .. n{n-1} */
    int ptr[MAX_NODES][N_PTR_FIELDS + 1]; /* -1: NULL, else a node */
    int val[MAX_NODES][N_INT_FIELDS + 1];
    int parg[N_PTR_ARGS + 1];           /* -1: NULL, else a node */
    int iarg[N_INT_ARGS + 1];
    int entry;
    int fail_at;                        /* this malloc call of the routine (from 0) fails; -1: none */
    unsigned reach;                     /* nodes reachable from the pointer arguments */
    int structured;
} Trial;

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int rnd(int n)
{
    return (int)(rng_next() % (uint64_t)n);
}

static int rnd_val(void)
{
    return VAL_MIN + rnd(VAL_MAX - VAL_MIN + 1);
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 1;
}

static int rnd_ptr(int n)
{
    return rnd(3) == 0 ? -1 : rnd(n);
}

/* In-order keys of a tree (pointer fields 0 and 1 are left and right). */
static void tree_keys(Trial *t, int node, int f, int *key)
{
    if (node < 0)
        return;
    tree_keys(t, t->ptr[node][0], f, key);
    t->val[node][f] = *key;
    *key += 1 + rnd(2);
    tree_keys(t, t->ptr[node][1], f, key);
}

static int tree_height(Trial *t, int node, int f)
{
    if (node < 0)
        return 0;
    int l = tree_height(t, t->ptr[node][0], f);
    int r = tree_height(t, t->ptr[node][1], f);
    t->val[node][f] = 1 + (l > r ? l : r);
    return t->val[node][f];
}

/* One well-formed structure per pointer argument, over a random partition of the nodes. */
static void gen_structured(Trial *t)
{
    int groups = N_PTR_ARGS > 0 ? N_PTR_ARGS : 1;
    int members[MAX_NODES + 1][MAX_NODES];
    int size[MAX_NODES + 1] = {0};
    for (int i = 0; i < t->n; i++) {
        int g = rnd(groups);
        members[g][size[g]++] = i;
    }
    for (int i = 0; i < t->n; i++) {
        for (int f = 0; f < N_PTR_FIELDS; f++)
            t->ptr[i][f] = -1;
        for (int f = 0; f < N_INT_FIELDS; f++)
            t->val[i][f] = rnd_val();
    }
    int rules = rnd(2);
    for (int g = 0; g < groups; g++) {
        int c = size[g];
        int *m = members[g];
        for (int j = 0; j < c; j++) {
            if (SHAPE == SHAPE_TREE) {
                while (j > 0) {
                    int parent = m[rnd(j)];
                    int side = N_PTR_FIELDS > 1 ? rnd(2) : 0;
                    if (t->ptr[parent][side] < 0) {
                        t->ptr[parent][side] = m[j];
                        break;
                    }
                }
            } else {
                if (j + 1 < c)
                    t->ptr[m[j]][0] = m[j + 1];
                if (SHAPE == SHAPE_DLIST && N_PTR_FIELDS > 1 && j > 0)
                    t->ptr[m[j]][1] = m[j - 1];
            }
        }
        if (c == 0 || !rules)
            continue;
        for (int f = 0; f < N_INT_FIELDS; f++) {
            int key = VAL_MIN + rnd(3);
            switch (int_rule[f]) {
            case RULE_KEY:
                if (SHAPE == SHAPE_TREE) {
                    tree_keys(t, m[0], f, &key);
                } else {
                    for (int j = 0; j < c; j++) {
                        t->val[m[j]][f] = key;
                        key += rnd(3);
                    }
                }
                break;
            case RULE_HEIGHT:
                if (SHAPE == SHAPE_TREE)
                    tree_height(t, m[0], f);
                break;
            case RULE_ZERO:
                for (int j = 0; j < c; j++)
                    t->val[m[j]][f] = 0;
                break;
            default:
                break;
            }
        }
    }
    for (int a = 0; a < N_PTR_ARGS; a++)
        t->parg[a] = rnd(4) == 0 ? rnd_ptr(t->n) : (size[a] > 0 ? members[a][0] : -1);
    /* A few random overwrites make well-formed inputs slightly malformed. */
    for (int k = rnd(3); k > 0; k--) {
        int i = rnd(t->n);
        if (N_INT_FIELDS == 0 || rnd(3) != 0)
            t->ptr[i][rnd(N_PTR_FIELDS)] = rnd_ptr(t->n);
        else
            t->val[i][rnd(N_INT_FIELDS)] = rnd_val();
    }
}

static void gen_trial(Trial *t, uint64_t seed, long index)
{
    memset(t, 0, sizeof *t);
    rng_state = mix(seed ^ mix((uint64_t)index));
    t->n = 1 + rnd(MAX_NODES);
    t->structured = rnd(2);
    if (t->structured) {
        gen_structured(t);
    } else {
        for (int i = 0; i < t->n; i++) {
            for (int f = 0; f < N_PTR_FIELDS; f++)
                t->ptr[i][f] = rnd_ptr(t->n);
            for (int f = 0; f < N_INT_FIELDS; f++)
                t->val[i][f] = rnd_val();
        }
        for (int a = 0; a < N_PTR_ARGS; a++)
            t->parg[a] = rnd(6) == 0 ? -1 : rnd(t->n);
    }
    for (int a = 0; a < N_INT_ARGS; a++)
        t->iarg[a] = (N_INT_FIELDS > 0 && rnd(2)) ? t->val[rnd(t->n)][rnd(N_INT_FIELDS)] : rnd_val();
    t->entry = rnd(N_ENTRIES);
    t->fail_at = rnd(10) < 3 ? rnd(3) : -1;
    /* Reachability from the arguments. */
    int queue[MAX_NODES], head = 0, tail = 0;
    t->reach = 0;
    for (int a = 0; a < N_PTR_ARGS; a++) {
        int v = t->parg[a];
        if (v >= 0 && !(t->reach >> v & 1)) {
            t->reach |= 1u << v;
            queue[tail++] = v;
        }
    }
    while (head < tail) {
        int u = queue[head++];
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            int v = t->ptr[u][f];
            if (v >= 0 && !(t->reach >> v & 1)) {
                t->reach |= 1u << v;
                queue[tail++] = v;
            }
        }
    }
}

/* ---- the child: blocks, hooks, one trial -------------------------------------------- */

static uintptr_t blk_addr[MAX_BLOCKS]; /* address ^ HIDE */
static int blk_tag[MAX_BLOCKS];        /* >= 0: input node; -1 - k: k-th block of the routine */
static int blk_live[MAX_BLOCKS];
static int n_blocks, n_fresh, overflow;

static volatile int armed, in_call;
static unsigned long steps;
static char *stack_base;
static int malloc_calls, fail_at;
static sigjmp_buf escape;
static int verbose_fd = -1; /* the real stderr, when PAPER_INPUTS_VERBOSE is set */

/* The roots after the call: real pointers, in globals, so LeakSanitizer scans them. */
static Node *result;
static Node *arg_roots[N_PTR_ARGS + 1];

enum { ST_OK, ST_STEPS, ST_STACK, ST_SEGV, ST_OVERFLOW, N_STATUS };
static const char *const status_name[] = {"ok", "steps", "stack", "segv", "overflow"};

static Node *unhide(int b)
{
    return (Node *)(blk_addr[b] ^ HIDE);
}

static void track(void *p, int tag)
{
    if (n_blocks == MAX_BLOCKS) {
        overflow = 1;
        return;
    }
    blk_addr[n_blocks] = (uintptr_t)p ^ HIDE;
    blk_tag[n_blocks] = tag;
    blk_live[n_blocks] = 1;
    n_blocks++;
}

/* The block at address p (a live one if there is one), or -1. */
static int find_block(const void *p)
{
    int found = -1;
    for (int b = 0; b < n_blocks; b++) {
        if ((uintptr_t)unhide(b) == (uintptr_t)p) {
            if (blk_live[b])
                return b;
            found = b;
        }
    }
    return found;
}

void *driver_malloc(size_t size)
{
    if (armed && malloc_calls++ == fail_at)
        return NULL;
    void *p = malloc(size);
    if (p != NULL)
        track(p, -1 - n_fresh++);
    return p;
}

void driver_free(void *p)
{
    if (p == NULL)
        return;
    int b = find_block(p);
    if (b >= 0)
        blk_live[b] = 0;
    free(p); /* a double free is an AddressSanitizer error: the child dies */
}

void __sanitizer_cov_trace_pc(void);
__attribute__((no_sanitize_coverage)) void __sanitizer_cov_trace_pc(void)
{
    if (!armed)
        return;
    if (++steps > STEP_LIMIT) {
        armed = 0;
        siglongjmp(escape, ST_STEPS);
    }
    if (stack_base - (char *)__builtin_frame_address(0) > STACK_LIMIT) {
        armed = 0;
        siglongjmp(escape, ST_STACK);
    }
}

static void on_fault(int sig)
{
    if (!in_call) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    armed = 0;
    siglongjmp(escape, ST_SEGV);
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=1:handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:"
           "symbolize=0:print_summary=0";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    /* The roots are the globals `result` and `arg_roots`: stacks and registers only hold
     * stale copies (they are wiped anyway). */
    return "use_stacks=0:use_registers=0";
}

/* Overwrites the stack below the caller, so no dead frame keeps a node's address. */
__attribute__((noinline, no_sanitize_address)) static void wipe_stack(void)
{
    volatile char buf[1 << 16];
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = 0;
}

__attribute__((noinline)) static void build_heap(const Trial *t)
{
    Node *volatile nodes[MAX_NODES];
    n_blocks = n_fresh = overflow = 0;
    for (int i = 0; i < t->n; i++) {
        nodes[i] = malloc(sizeof(Node));
        if (nodes[i] == NULL)
            abort();
        memset(nodes[i], 0, sizeof(Node));
        track(nodes[i], i);
    }
    for (int i = 0; i < t->n; i++) {
        for (int f = 0; f < N_PTR_FIELDS; f++)
            set_ptr(nodes[i], f, t->ptr[i][f] < 0 ? NULL : nodes[t->ptr[i][f]]);
        for (int f = 0; f < N_INT_FIELDS; f++)
            set_int(nodes[i], f, t->val[i][f]);
    }
    for (int i = 0; i < t->n; i++) {
        if (!(t->reach >> i & 1)) {
            blk_live[i] = 0;
            free(nodes[i]);
        }
    }
    for (int i = 0; i < t->n; i++)
        nodes[i] = NULL;
}

__attribute__((noinline)) static void call_routine(const Trial *t)
{
    Node *volatile p[N_PTR_ARGS + 1];
    int k[N_INT_ARGS + 1];
    for (int a = 0; a < N_PTR_ARGS; a++)
        p[a] = t->parg[a] < 0 ? NULL : unhide(t->parg[a]);
    for (int a = 0; a < N_INT_ARGS; a++)
        k[a] = t->iarg[a];
    (void)k;
    malloc_calls = 0;
    fail_at = t->fail_at;
    steps = 0;
    stack_base = (char *)__builtin_frame_address(0);
    in_call = 1;
    armed = 1;
    Node *r = CALL(t->entry, p, k);
    armed = 0;
    in_call = 0;
    result = r;
    for (int a = 0; a < N_PTR_ARGS; a++) {
        arg_roots[a] = (ARG_ROOTS >> a & 1u) ? p[a] : NULL;
        p[a] = NULL;
    }
}

/* Frees every block still allocated, and forgets the roots. */
static void cleanup(void)
{
    result = NULL;
    for (int a = 0; a < N_PTR_ARGS; a++)
        arg_roots[a] = NULL;
    for (int b = 0; b < n_blocks; b++) {
        if (blk_live[b]) {
            blk_live[b] = 0;
            free(unhide(b));
        }
    }
    n_blocks = n_fresh = 0;
}

/*
 * LeakSanitizer's leak check.  Returns 0 (no leak), 1 (only indirect leaks: every leaked
 * block is pointed to by a leaked block) or 2 (some direct leak).  Its report went to fd 2,
 * a temporary file: read, then emptied.
 */
static int lsan_check(void)
{
    if (!__lsan_do_recoverable_leak_check())
        return 0;
    static char report[1 << 16];
    off_t end = lseek(2, 0, SEEK_CUR);
    ssize_t len = end > 0 ? pread(2, report, sizeof report - 1, 0) : 0;
    report[len > 0 ? len : 0] = 0;
    if (verbose_fd >= 0 && len > 0 && write(verbose_fd, report, (size_t)len) < 0)
        verbose_fd = -1;
    if (ftruncate(2, 0) != 0 || lseek(2, 0, SEEK_SET) != 0)
        _exit(4);
    return strstr(report, "Direct leak") != NULL ? 2 : 1;
}

/*
 * BFS from the roots.  Sets the masks of the input nodes that are unreachable (lost[0]), of
 * those that no other allocated block points to (lost[1]: LeakSanitizer's direct leaks), and
 * of those no allocated block points to, themselves included (lost[2]: referencing leaks);
 * fresh[] counts the same for the blocks the routine allocated.
 */
static void bfs_leaks(unsigned lost[3], int fresh[3])
{
    int seen[MAX_BLOCKS] = {0}, by_other[MAX_BLOCKS] = {0}, by_self[MAX_BLOCKS] = {0};
    int queue[MAX_BLOCKS];
    int head = 0, tail = 0;
    const Node *roots[N_PTR_ARGS + 2];
    int nroots = 0;
    roots[nroots++] = result;
    for (int a = 0; a < N_PTR_ARGS; a++)
        roots[nroots++] = arg_roots[a];
    for (int r = 0; r < nroots; r++) {
        int b = roots[r] ? find_block(roots[r]) : -1;
        if (b >= 0 && blk_live[b] && !seen[b]) {
            seen[b] = 1;
            queue[tail++] = b;
        }
    }
    while (head < tail) {
        int u = queue[head++];
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            Node *v = get_ptr(unhide(u), f);
            int b = v ? find_block(v) : -1;
            if (b >= 0 && blk_live[b] && !seen[b]) {
                seen[b] = 1;
                queue[tail++] = b;
            }
        }
    }
    for (int u = 0; u < n_blocks; u++) {
        if (!blk_live[u])
            continue;
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            Node *v = get_ptr(unhide(u), f);
            int b = v ? find_block(v) : -1;
            if (b >= 0 && blk_live[b])
                *(b == u ? &by_self[b] : &by_other[b]) = 1;
        }
    }
    for (int k = 0; k < 3; k++)
        lost[k] = 0, fresh[k] = 0;
    for (int b = 0; b < n_blocks; b++) {
        if (!blk_live[b] || seen[b])
            continue;
        int in[3] = {1, !by_other[b], !by_other[b] && !by_self[b]};
        for (int k = 0; k < 3; k++) {
            if (!in[k])
                continue;
            if (blk_tag[b] >= 0)
                lost[k] |= 1u << blk_tag[b];
            else
                fresh[k]++;
        }
    }
}

static void block_name(const void *p, char *out, size_t cap)
{
    if (p == NULL) {
        snprintf(out, cap, "NULL");
        return;
    }
    int b = find_block(p);
    if (b < 0)
        snprintf(out, cap, "?");
    else if (blk_tag[b] >= 0)
        snprintf(out, cap, "n%d%s", blk_tag[b], blk_live[b] ? "" : "(freed)");
    else
        snprintf(out, cap, "new%d%s", -1 - blk_tag[b], blk_live[b] ? "" : "(freed)");
}

__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t cap,
                                                          const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* The heap after the call: every block (the nodes freed before the call are left out). */
static void describe_after(const Trial *t, char *buf, size_t cap)
{
    char name[32];
    buf[0] = 0;
    block_name(result, name, sizeof name);
    append(buf, cap, "result=%s;", name);
    for (int b = 0; b < n_blocks; b++) {
        if (blk_tag[b] >= 0 && !(t->reach >> blk_tag[b] & 1))
            continue;
        block_name(unhide(b), name, sizeof name);
        if (!blk_live[b]) {
            append(buf, cap, " %s", name);
            continue;
        }
        append(buf, cap, " %s {", name);
        for (int f = 0; f < N_INT_FIELDS; f++)
            append(buf, cap, "%s=%d ", int_name[f], get_int(unhide(b), f));
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            char target[32];
            block_name(get_ptr(unhide(b), f), target, sizeof target);
            append(buf, cap, "%s%s=%s", f ? " " : "", ptr_name[f], target);
        }
        append(buf, cap, "}");
    }
}

/* Runs trial `index`; writes one record line into `line`. */
static void run_trial(const Trial *t, long index, char *line, size_t cap)
{
    build_heap(t);
    wipe_stack();
    alarm(1);
    int st = sigsetjmp(escape, 1);
    if (st == ST_OK)
        call_routine(t);
    armed = 0;
    in_call = 0;
    if (st == ST_OK && overflow)
        st = ST_OVERFLOW;
    if (st != ST_OK) {
        alarm(0);
        cleanup();
        snprintf(line, cap, "R %ld %s\n", index, status_name[st]);
        return;
    }
    wipe_stack();
    int lsan = lsan_check();
    alarm(0);
    unsigned lost[3];
    int fresh[3];
    bfs_leaks(lost, fresh);
    char after[POST_CAP];
    describe_after(t, after, sizeof after);
    snprintf(line, cap, "R %ld ok %d %u %u %u %d %d %d %d|%s\n", index, lsan, lost[0], lost[1],
             lost[2], fresh[0], fresh[1], fresh[2], malloc_calls, after);
    cleanup();
}

static void child_loop(uint64_t seed, long first, long count, int fd)
{
    /* LeakSanitizer reports to fd 2: a temporary file, read after each check. */
    if (getenv("PAPER_INPUTS_VERBOSE") != NULL)
        verbose_fd = dup(2);
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/paper-inputs-XXXXXX", dir);
    int tmp = mkstemp(path);
    if (tmp < 0) {
        perror("mkstemp (the child's LeakSanitizer reports)");
        _exit(5);
    }
    unlink(path);
    dup2(tmp, 2);
    close(tmp);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    for (long i = first; i < count; i++) {
        Trial t;
        char line[POST_CAP + 128];
        gen_trial(&t, seed, i);
        run_trial(&t, i, line, sizeof line);
        size_t len = strlen(line), off = 0;
        while (off < len) {
            ssize_t w = write(fd, line + off, len - off);
            if (w <= 0)
                _exit(3);
            off += (size_t)w;
        }
    }
    _exit(0);
}

/* ---- the parent: runs children, collects the results, prints witnesses ---------------- */

typedef struct {
    long index;
    int lsan;                  /* 0 none, 1 indirect leaks only, 2 some direct leak */
    unsigned lost[3];          /* input nodes: unreachable, direct, unreferenced (bfs_leaks) */
    int fresh[3], malloc_calls;
    int size;                  /* nodes reachable from the arguments */
    char sig[256];             /* the shape, up to renaming: one witness per shape */
    char after[POST_CAP];
} Witness;

enum { REFERENCING, CYCLE_ONLY, N_KINDS };
static const char *const kind_name[] = {"referencing", "cycle-only"};
static Witness witnesses[N_KINDS][MAX_WITNESSES], mismatch;
static int n_witnesses[N_KINDS], have_mismatch;

static int popcount(unsigned x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

static void print_nodes(unsigned mask, int fresh)
{
    const char *sep = "";
    for (int i = 0; i < MAX_NODES; i++) {
        if (mask >> i & 1) {
            printf("%sn%d", sep, i);
            sep = ", ";
        }
    }
    if (fresh)
        printf("%s%d block(s) allocated by the routine", sep, fresh);
    if (!mask && !fresh)
        printf("none");
}

/* What LeakSanitizer should have said, by the BFS: 0 no leak, 1 indirect only, 2 direct. */
static int bfs_verdict(const Witness *w)
{
    if (!w->lost[0] && !w->fresh[0])
        return 0;
    return w->lost[1] || w->fresh[1] ? 2 : 1;
}

static void print_witness(const char *what, const Witness *w, uint64_t seed)
{
    Trial t;
    gen_trial(&t, seed, w->index);
    printf("%s %s trial=%ld kind=%s lsan=%d bfs=%d\n", what, ROUTINE, w->index,
           kind_name[w->lost[2] || w->fresh[2] ? REFERENCING : CYCLE_ONLY], w->lsan,
           bfs_verdict(w));
    printf("  before the call (nodes not reachable from the arguments were freed):\n");
    for (int i = 0; i < t.n; i++) {
        if (!(t.reach >> i & 1))
            continue;
        printf("    n%d {", i);
        for (int f = 0; f < N_INT_FIELDS; f++)
            printf("%s=%d ", int_name[f], t.val[i][f]);
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            if (t.ptr[i][f] < 0)
                printf("%s=NULL", ptr_name[f]);
            else
                printf("%s=n%d", ptr_name[f], t.ptr[i][f]);
            printf(f + 1 < N_PTR_FIELDS ? " " : "");
        }
        printf("}\n");
    }
    printf("  call: %s(", entry_name[t.entry]);
    for (int a = 0; a < N_PTR_ARGS; a++) {
        if (t.parg[a] < 0)
            printf("%s%s=NULL", a ? ", " : "", ptr_arg_name[a]);
        else
            printf("%s%s=n%d", a ? ", " : "", ptr_arg_name[a], t.parg[a]);
    }
    for (int a = 0; a < N_INT_ARGS; a++)
        printf("%s%s=%d", (a || N_PTR_ARGS) ? ", " : "", int_arg_name[a], t.iarg[a]);
    printf(")\n");
    if (t.fail_at >= 0 && w->malloc_calls > t.fail_at)
        printf("  malloc: call #%d of the routine returns NULL (the others succeed)\n",
               t.fail_at + 1);
    printf("  after the call: %s\n", w->after);
    printf("  roots after the call: the result");
    for (int a = 0; a < N_PTR_ARGS; a++)
        if (ARG_ROOTS >> a & 1u)
            printf(", %s", ptr_arg_name[a]);
    printf("\n  unreachable from the roots (leaked): ");
    print_nodes(w->lost[0], w->fresh[0]);
    printf("\n  of which pointed to by no other block (LeakSanitizer: direct leak): ");
    print_nodes(w->lost[1], w->fresh[1]);
    printf("\n  of which pointed to by no block, not even itself (last reference lost): ");
    print_nodes(w->lost[2], w->fresh[2]);
    printf("\nEND\n");
}

/*
 * The witness's shape: the reachable nodes renamed in BFS order from the arguments, their
 * pointer fields, the arguments, the leaked nodes, whether malloc failed.  Int values are left
 * out, so witnesses that differ only in them count as one.
 */
static void signature(const Trial *t, const Witness *w, char *sig, size_t cap)
{
    int label[MAX_NODES], order[MAX_NODES], count = 0;
    for (int i = 0; i < MAX_NODES; i++)
        label[i] = -1;
    for (int a = 0; a < N_PTR_ARGS; a++) {
        int v = t->parg[a];
        if (v >= 0 && label[v] < 0) {
            label[v] = count;
            order[count++] = v;
        }
    }
    for (int h = 0; h < count; h++) {
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            int v = t->ptr[order[h]][f];
            if (v >= 0 && label[v] < 0) {
                label[v] = count;
                order[count++] = v;
            }
        }
    }
    sig[0] = 0;
    append(sig, cap, "e%d a", t->entry);
    for (int a = 0; a < N_PTR_ARGS; a++)
        append(sig, cap, "%d,", t->parg[a] < 0 ? -1 : label[t->parg[a]]);
    for (int h = 0; h < count; h++) {
        append(sig, cap, " %s%s", (w->lost[0] >> order[h] & 1) ? "L" : "",
               (w->lost[2] >> order[h] & 1) ? "U" : "");
        for (int f = 0; f < N_PTR_FIELDS; f++) {
            int v = t->ptr[order[h]][f];
            append(sig, cap, "%d,", v < 0 ? -1 : label[v]);
        }
    }
    append(sig, cap, " f%d/%d m%d", w->fresh[0], w->fresh[2],
           t->fail_at >= 0 && w->malloc_calls > t->fail_at);
}

/* Keeps the `limit` smallest witnesses of a kind (fewest nodes, then earliest), one per shape. */
static void keep_witness(int kind, Witness *w, int limit, uint64_t seed)
{
    Trial t;
    gen_trial(&t, seed, w->index);
    w->size = popcount(t.reach);
    signature(&t, w, w->sig, sizeof w->sig);
    Witness *list = witnesses[kind];
    int n = n_witnesses[kind];
    for (int k = 0; k < n; k++)
        if (strcmp(list[k].sig, w->sig) == 0)
            return;
    int pos = n;
    while (pos > 0 && list[pos - 1].size > w->size)
        pos--;
    if (pos >= limit)
        return;
    int last = n < limit ? n : limit - 1;
    for (int k = last; k > pos; k--)
        list[k] = list[k - 1];
    list[pos] = *w;
    if (n < limit)
        n_witnesses[kind]++;
}

static uint64_t name_seed(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

int main(int argc, char **argv)
{
    long trials = argc > 1 ? atol(argv[1]) : 2000;
    int limit = argc > 2 ? atoi(argv[2]) : 3;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : name_seed(ROUTINE);
    if (limit < 0)
        limit = 0;
    if (limit > MAX_WITNESSES)
        limit = MAX_WITNESSES;
    long completed = 0, leaking = 0, referencing = 0, mismatches = 0;
    long discarded[N_STATUS] = {0}, crashed = 0, timeouts = 0, children = 0;
    static char line[POST_CAP + 256];

    setvbuf(stdout, NULL, _IOLBF, 0);
    long next = 0;
    while (next < trials) {
        int fds[2];
        if (pipe(fds) != 0) {
            perror("pipe");
            return 2;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            close(fds[0]);
            child_loop(seed, next, trials, fds[1]);
        }
        children++;
        close(fds[1]);
        FILE *in = fdopen(fds[0], "r");
        while (fgets(line, sizeof line, in) != NULL) {
            long index;
            char status[16];
            if (sscanf(line, "R %ld %15s", &index, status) != 2 || index != next)
                continue;
            next = index + 1;
            if (strcmp(status, "ok") != 0) {
                for (int s = 1; s < N_STATUS; s++)
                    if (strcmp(status, status_name[s]) == 0)
                        discarded[s]++;
                continue;
            }
            Witness w;
            memset(&w, 0, sizeof w);
            w.index = index;
            if (sscanf(line, "R %*d ok %d %u %u %u %d %d %d %d|", &w.lsan, &w.lost[0],
                       &w.lost[1], &w.lost[2], &w.fresh[0], &w.fresh[1], &w.fresh[2],
                       &w.malloc_calls) != 8)
                continue;
            const char *bar = strchr(line, '|');
            snprintf(w.after, sizeof w.after, "%s", bar ? bar + 1 : "");
            w.after[strcspn(w.after, "\n")] = 0;
            completed++;
            int bfs = bfs_verdict(&w);
            int refs = w.lost[2] || w.fresh[2];
            if (w.lsan || bfs)
                leaking++;
            if (refs)
                referencing++;
            if (refs)
                keep_witness(REFERENCING, &w, limit, seed);
            else if (w.lsan || bfs)
                keep_witness(CYCLE_ONLY, &w, limit, seed);
            if (w.lsan != bfs) {
                mismatches++;
                if (!have_mismatch) {
                    mismatch = w;
                    have_mismatch = 1;
                }
            }
        }
        fclose(in);
        int st = 0;
        waitpid(pid, &st, 0);
        if (next < trials) {
            /* The child died during trial `next`. */
            if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
                timeouts++;
            else
                crashed++;
            next++;
        }
    }
    for (int kind = 0; kind < N_KINDS; kind++)
        for (int k = 0; k < n_witnesses[kind]; k++)
            print_witness("WITNESS", &witnesses[kind][k], seed);
    if (have_mismatch)
        print_witness("MISMATCH", &mismatch, seed);
    long disc = crashed + timeouts;
    for (int s = 1; s < N_STATUS; s++)
        disc += discarded[s];
    printf("SUMMARY %s trials=%ld completed=%ld discarded=%ld steps=%ld stack=%ld segv=%ld "
           "crash=%ld timeout=%ld overflow=%ld leaking=%ld referencing=%ld cycle_only=%ld "
           "mismatches=%ld children=%ld seed=%#llx\n",
           ROUTINE, trials, completed, disc, discarded[ST_STEPS], discarded[ST_STACK],
           discarded[ST_SEGV], crashed, timeouts, discarded[ST_OVERFLOW], leaking, referencing,
           leaking - referencing, mismatches, children, (unsigned long long)seed);
    return 0;
}
