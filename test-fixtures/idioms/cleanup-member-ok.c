// fixture: idioms/cleanup-member-ok — a constructor's error path frees the half-built object through its destructor
#include <stdlib.h>

/*
 * Idiom: a constructor allocates an object and its private part
 * (`priv = ctx->priv = calloc(...)`), and every failure jumps to one label
 * that calls the destructor, which frees the members it finds set.  The
 * private part is freed there, or was never allocated.
 * Leaking twin: cleanup-member-leak.c.
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
    free(c->priv);
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
    return NULL;
}
