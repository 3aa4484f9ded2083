// fixture: idioms/macro-output-arg-leak — a command read by an unexpanded macro selects the leaking handler
#include <stdlib.h>

/*
 * Idiom: `READ_U16(s, fn)` is a macro from a header the analysis does not
 * see: it assigns `fn`. Taken for a call, it would leave `fn` at its
 * initial 0, the `case 1:` below would look unreachable, and the leak in
 * `select_if` (the block dropped when `replace` refuses it) would be
 * "proved" away through its only caller. A name declared nowhere may assign
 * the integer lvalues passed to it.
 * Fixed twin: macro-output-arg-ok.c.
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
    if (!replace(c, it))
        return 3;                       // expect: leak it
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
