// fixture: idioms/member-paths-leak — a limit check after the allocation returns without freeing
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in member-paths-ok.c, but a second check after the
 * allocation, against the registry's limit, returns without freeing the
 * copy.
 * Fixed twin: member-paths-ok.c.
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
    if (n > s->reg->limit) {
        puts("too many");
        return;                         // expect: leak copy
    }
    for (int i = 0; i < n; i++)
        printf("%d\n", copy[i]);
    free(copy);
}
