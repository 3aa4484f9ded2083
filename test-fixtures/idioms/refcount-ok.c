// fixture: idioms/refcount-ok — a constructor's `refcount = 1` decides the unref that follows
#include <stdlib.h>

/*
 * Idiom: a reference-counted context. The constructor sets the count to 1;
 * on its own error path it drops that reference with `ctx_unref`, which
 * frees the context when the count falls to 0. The count is known to be 1
 * there, so the unref frees it: `refcount - 1 > 0` is `0 > 0`.
 * Leaking twin: refcount-leak.c.
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
    c->refcount = 1;
    c->fd = -1;
    c->dir = malloc(len + 1);
    if (!c->dir)
        goto fail;
    if (dir[0] != '/')
        goto fail;
    return c;
fail:
    ctx_unref(c);
    return NULL;
}
