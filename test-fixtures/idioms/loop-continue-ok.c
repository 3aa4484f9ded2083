// fixture: idioms/loop-continue-ok — the per-iteration copy is freed before `continue`
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a per-iteration heap copy in a block-scoped local.  Comment lines
 * are skipped with `continue` after freeing the copy, so leaving the block
 * early loses nothing.  Leaking twin: loop-continue-leak.c.
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
        if (copy[0] == '#') {
            free(copy);
            continue;
        }
        if (normalize(copy) == 0)
            valid++;
        free(copy);
    }
    return valid;
}
