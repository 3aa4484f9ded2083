// fixture: idioms/loop-continue-leak — `continue` skips the free of a per-iteration copy
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a per-iteration heap copy in a block-scoped local.  Comment lines
 * are skipped with `continue`, which leaves the block while `copy` is the
 * last reference to the string.  Fixed twin: loop-continue-ok.c.
 */

static int normalize(char *s)
{
    size_t i;

    for (i = 0; s[i] != '\0'; i++)
        if (s[i] == '\t')
            s[i] = ' ';
    return i > 0 ? 0 : -1;
}

int count_valid(const char *const *lines, int n)
{
    int i, valid = 0;

    for (i = 0; i < n; i++) {
        char *copy = strdup(lines[i]);
        if (copy == NULL)
            return -1;
        if (copy[0] == '#')
            continue;                           // expect: leak copy
        if (normalize(copy) == 0)
            valid++;
        free(copy);
    }
    return valid;
}
