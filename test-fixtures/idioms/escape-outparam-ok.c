// fixture: idioms/escape-outparam-ok — new buffer handed to the caller through `*out`
#include <stdlib.h>

/*
 * Idiom: constructor with a status return and an out-parameter.  After
 * `*out = buf` the caller's variable references the block, so `buf` going
 * out of scope at the return is not a leak.
 * Leaking twin: escape-outparam-leak.c.
 */

int make_padding(size_t n, char **out)
{
    char *buf = malloc(n + 1);
    size_t i;

    if (buf == NULL)
        return -1;
    for (i = 0; i < n; i++)
        buf[i] = ' ';
    buf[n] = '\0';
    *out = buf;
    return 0;
}
