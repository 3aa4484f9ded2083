// fixture: idioms/interior-return-ok — a constructor returns a pointer to the first member of its block
#include <stdlib.h>

/*
 * Idiom: "inheritance" by embedding.  A derived object embeds its base as a
 * member and the constructor hands out `&obj->base`; the caller owns the whole
 * block through that interior pointer and gives it back to the destructor,
 * which recovers the block (container_of).  Returning `&o->base` keeps the
 * block referenced, so nothing leaks.
 * Leaking twin: interior-return-leak.c.
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
    o->base.kind = kind;
    return &o->base;
}

struct base *derived_new_via_local(int kind)
{
    struct derived *o = calloc(1, sizeof *o);
    struct base *b;

    if (o == NULL)
        return NULL;
    b = &o->base;
    b->kind = kind;
    return b;
}

void derived_free(struct base *b)
{
    free((struct derived *)b);
}
