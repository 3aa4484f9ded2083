// fixture: idioms/realloc-ok — realloc through a temporary, freeing the old block on failure
#include <stdlib.h>

/*
 * Idiom: `tmp = realloc(p, n); if (!tmp) { free(p); return -1; } p = tmp;`
 * On failure the old block is freed explicitly; on success realloc has
 * already released it, so `vals = tmp` overwrites a dead pointer.
 * Leaking twin: realloc-leak.c.
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
            int *tmp = realloc(vals, 2 * cap * sizeof *vals);
            if (tmp == NULL) {
                free(vals);
                return -1;
            }
            vals = tmp;
            cap *= 2;
        }
        vals[len++] = (i * 7919) % 1000;
    }
    *out = vals;
    return (int)len;
}
