// fixture: idioms/refcount-leak — a second reference taken on the error path keeps the unref from freeing
#include <stdlib.h>

/*
 * Idiom: as in refcount-ok.c, but the constructor counts a reference for
 * an observer it has not registered yet (`refcount = 2`): the unref on the
 * error path leaves the count at 1 and frees nothing.
 * Fixed twin: refcount-ok.c.
 */

struct ctx {
    int refcount;
    char *dir;
    int fd;
};

void ctx_unref(struct ctx *c)
{
    if (!c)
        return;
    c->refcount--;
    if (c->refcount <= 0) {
        free(c->dir);
        free(c);
    }
}

struct ctx *ctx_new(const char *dir, size_t len)
{
    struct ctx *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->refcount = 2;
    c->fd = -1;
    c->dir = malloc(len + 1);
    if (!c->dir)
        goto fail;
    if (dir[0] != '/')
        goto fail;
    return c;
fail:
    ctx_unref(c);
    return NULL;                        // expect: leak c
}
