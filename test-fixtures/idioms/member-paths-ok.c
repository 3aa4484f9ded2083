// fixture: idioms/member-paths-ok — a failure that needs a NULL member the earlier call already ruled out
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a debugger command (mruby's mrdb `info_break_all`) asks an API for
 * a count, allocates that many entries and asks the same API to fill them.
 * Each API function returns an error for a NULL registry. The copy can fail
 * only if `s->reg` is NULL, but then the count failed first and the function
 * returned before allocating: the early return after the copy loses nothing.
 * Deciding it needs the paths that test `s->reg` differently (NULL in
 * `registry_copy`, non-NULL with a count) kept apart, not joined into one
 * fact that has forgotten both tests. Main's build joined them and reported
 * the copy lost.
 * Leaking twin: member-paths-leak.c.
 */

struct registry {
    int count;
    int limit;
    int *items;
};

struct session {
    struct registry *reg;
    int verbose;
};

int registry_count(struct registry *reg)
{
    if (reg == NULL)
        return -1;
    return reg->count;
}

int registry_copy(struct registry *reg, int n, int *out)
{
    if (reg == NULL)
        return -1;
    if (n > reg->count)
        n = reg->count;
    memcpy(out, reg->items, (size_t)n * sizeof(*out));
    return n;
}

void show_all(struct session *s)
{
    int n = registry_count(s->reg);

    if (n < 0) {
        puts("no registry");
        return;
    }
    if (n == 0)
        return;
    int *copy = malloc((size_t)n * sizeof(*copy));
    if (copy == NULL)
        return;
    if (registry_copy(s->reg, n, copy) < 0) {
        puts("copy failed");
        return;
    }
    for (int i = 0; i < n; i++)
        printf("%d\n", copy[i]);
    free(copy);
}
