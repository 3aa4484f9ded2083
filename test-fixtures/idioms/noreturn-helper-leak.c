// fixture: idioms/noreturn-helper-leak — an allocator wrapper whose error helper returns
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: as noreturn-helper-ok.c, but the wrapper's error helper only prints
 * and returns, so xmalloc() can return NULL: make_pair() then returns without
 * freeing the first block.
 * Fixed twin: noreturn-helper-ok.c.
 */

struct pair {
    char *a, *b;
};

static void complain(const char *what)
{
    fprintf(stderr, "error: %s\n", what);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (p == NULL)
        complain("out of memory");
    return p;
}

struct pair *make_pair(struct pair *out)
{
    char *a = xmalloc(16);
    char *b = xmalloc(16);

    if (b == NULL)
        return NULL;                            // expect: leak a
    out->a = a;
    out->b = b;
    return out;
}
