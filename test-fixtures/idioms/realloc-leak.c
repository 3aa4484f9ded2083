// fixture: idioms/realloc-leak — `p = realloc(p, n)` loses the old block when realloc fails
#include <stdlib.h>

/*
 * Idiom: growing an array with the self-assignment form of realloc.  When
 * realloc fails it returns NULL and leaves the old block allocated; the
 * assignment overwrites the only pointer to it.  The old block comes from
 * the malloc above or from the previous realloc, both in this function.
 * Fixed twin: realloc-ok.c.
 */

int read_samples(int n, int **out)
{
    int *vals;
    size_t cap = 4, len = 0;
    int i;

    vals = malloc(cap * sizeof *vals);
    if (vals == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (len == cap) {
            cap *= 2;
            vals = realloc(vals, cap * sizeof *vals);   // expect: leak vals
            if (vals == NULL)
                return -1;
        }
        vals[len++] = (i * 7919) % 1000;
    }
    *out = vals;
    return (int)len;
}
