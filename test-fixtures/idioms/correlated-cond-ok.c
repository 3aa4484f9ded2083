// fixture: idioms/correlated-cond-ok — allocation and free guarded by the same condition
#include <stdlib.h>

/*
 * Idiom: `if (c) p = malloc(..); ... if (c) free(p);` with c unchanged in
 * between.  The path that allocates is exactly the path that frees; a
 * path-insensitive analysis would see an infeasible leaking path.
 * Leaking twin: correlated-cond-leak.c.
 */

int render(int width, int use_cache)
{
    char *cache = NULL;
    int i, sum = 0;

    if (use_cache) {
        cache = malloc((size_t)width);
        if (cache == NULL)
            return -1;
    }
    for (i = 0; i < width; i++) {
        int v = (i * 31) & 0xff;
        if (use_cache)
            cache[i] = (char)v;
        sum += v;
    }
    if (use_cache)
        free(cache);
    return sum;
}
