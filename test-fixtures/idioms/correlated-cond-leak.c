// fixture: idioms/correlated-cond-leak — allocation and free guarded by different conditions
#include <stdlib.h>

/*
 * Idiom gone wrong: the buffer is also allocated for wide renders, but it
 * is only freed when use_cache is set.  For width > 4096 and !use_cache
 * the buffer is still referenced only by `cache` at the return.
 * Fixed twin: correlated-cond-ok.c.
 */

int render(int width, int use_cache)
{
    char *cache = NULL;
    int i, sum = 0;

    if (use_cache || width > 4096) {
        cache = malloc((size_t)width);
        if (cache == NULL)
            return -1;
    }
    for (i = 0; i < width; i++) {
        int v = (i * 31) & 0xff;
        if (cache != NULL)
            cache[i] = (char)v;
        sum += v;
    }
    if (use_cache)
        free(cache);
    return sum;                                 // expect: leak cache
}
