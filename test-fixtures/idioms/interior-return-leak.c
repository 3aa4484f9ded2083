// fixture: idioms/interior-return-leak — a constructor drops its block on an error path
#include <stdlib.h>

/*
 * Idiom: "inheritance" by embedding, as in interior-return-ok.c, but the
 * constructor checks its argument after allocating and returns NULL without
 * freeing the block.  Handing out `&o->base` on the success path must not hide
 * the error path's leak.
 * Fixed twin: interior-return-ok.c.
 */

struct base {
    int kind;
};

struct derived {
    struct base base;
    char *name;
};

struct base *derived_new(int kind)
{
    struct derived *o = calloc(1, sizeof *o);

    if (o == NULL)
        return NULL;
    if (kind < 0)
        return NULL;                            // expect: leak o
    o->base.kind = kind;
    return &o->base;
}

void derived_free(struct base *b)
{
    free((struct derived *)b);
}
