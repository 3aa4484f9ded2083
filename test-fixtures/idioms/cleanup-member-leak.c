// fixture: idioms/cleanup-member-leak — the destructor forgets the private part the error path relies on it to free
#include <stdlib.h>

/*
 * Idiom: as in cleanup-member-ok.c, but the destructor frees the private
 * part's buffer and not the private part itself: the constructor's error
 * path, which relies on it, loses the private part.
 * Fixed twin: cleanup-member-ok.c.
 */

struct priv {
    int *scratch;
    int ready;
};

struct ctx {
    struct priv *priv;
    int id;
};

void ctx_free(struct ctx *c)
{
    if (c == NULL)
        return;
    if (c->priv != NULL)
        free(c->priv->scratch);
    free(c);
}

struct ctx *ctx_new(int id)
{
    struct ctx *ctx = NULL;
    struct priv *priv = NULL;

    ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        goto fail;
    priv = ctx->priv = calloc(1, sizeof(*priv));
    if (ctx->priv == NULL)
        goto fail;
    priv->scratch = calloc(16, sizeof(int));
    if (priv->scratch == NULL)
        goto fail;
    ctx->id = id;
    priv->ready = 1;
    return ctx;
fail:
    ctx_free(ctx);
    return NULL;                                // expect: leak priv
}
