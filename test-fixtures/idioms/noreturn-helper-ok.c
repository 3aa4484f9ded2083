// fixture: idioms/noreturn-helper-ok — an allocator wrapper dies through the project's own fatal()
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: xmalloc() calls the project's fatal(), which prints and exits: it
 * never returns, so xmalloc() never returns NULL.  make_pair()'s check of the
 * second allocation is dead code, and the first block is never dropped there.
 * Leaking twin: noreturn-helper-leak.c.
 */

struct pair {
    char *a, *b;
};

static void fatal(const char *what)
{
    fprintf(stderr, "fatal: %s\n", what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (p == NULL)
        fatal("out of memory");
    return p;
}

struct pair *make_pair(struct pair *out)
{
    char *a = xmalloc(16);
    char *b = xmalloc(16);

    if (b == NULL)
        return NULL;
    out->a = a;
    out->b = b;
    return out;
}
