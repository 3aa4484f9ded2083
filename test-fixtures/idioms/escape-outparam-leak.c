// fixture: idioms/escape-outparam-leak — buffer assigned to a by-value parameter instead of through an out-parameter
#include <stdlib.h>

/*
 * Idiom gone wrong: the parameter should have been `char **out` with
 * `*out = buf`.  Assigning to the by-value parameter `out` changes only
 * the callee's copy, so the caller never sees the buffer and `out` is its
 * last reference at the return.  (The assignment itself only overwrites
 * the caller's argument value, which is not a known allocation.)
 * Fixed twin: escape-outparam-ok.c.
 */

int make_padding(size_t n, char *out)
{
    size_t i;

    out = malloc(n + 1);
    if (out == NULL)
        return -1;
    for (i = 0; i < n; i++)
        out[i] = ' ';
    out[n] = '\0';
    return 0;                                   // expect: leak out
}
