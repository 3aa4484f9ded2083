// fixture: idioms/macro-output-arg-ok — a command read by an unexpanded macro selects a handler that frees what is refused
#include <stdlib.h>

/*
 * Idiom: as in macro-output-arg-leak.c (`READ_U16(s, fn)` is an unexpanded
 * macro that assigns `fn`), but the handler frees the block when `replace`
 * refuses it.
 * Leaking twin: macro-output-arg-leak.c.
 */

struct cfg {
    int *items;
    int n;
};

int replace(struct cfg *c, int *item)
{
    if (!c || !c->items)
        return 0;
    free(c->items);
    c->items = item;
    return 1;
}

static int select_if(struct cfg *c, void *s)
{
    int *it = malloc(sizeof(int));

    (void)s;
    if (!it)
        return 2;
    if (!replace(c, it)) {
        free(it);
        return 3;
    }
    return 0;
}

int process(struct cfg *c, void *s)
{
    unsigned fn = 0;

    READ_U16(s, fn);
    switch (fn) {
    case 1:
        return select_if(c, s);
    default:
        return 9;
    }
}
