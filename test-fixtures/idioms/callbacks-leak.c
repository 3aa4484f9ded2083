// fixture: idioms/callbacks-leak — per-request context never released: the destroy callback is not called
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a table of handlers, each a struct of callbacks, looked up by
 * name.  The request context should be released through the handler's
 * destroy callback, but serve() never calls it: `c` is the last reference
 * to the context at the return (its scratch buffer hangs off it, so it is
 * not a separate loss).  Fixed twin: callbacks-ok.c.
 */

struct ctx { int calls; char *scratch; };

struct handler {
    const char *name;
    int (*handle)(int request);
    void (*destroy)(struct ctx *c);
};

static int echo_handle(int request) { return request; }
static int double_handle(int request) { return 2 * request; }

static void ctx_destroy(struct ctx *c) { free(c->scratch); free(c); }

static const struct handler handlers[] = {
    { "echo", echo_handle, ctx_destroy },
    { "double", double_handle, ctx_destroy },
};

static const struct handler *find_handler(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if (strcmp(handlers[i].name, name) == 0)
            return &handlers[i];
    return NULL;
}

int serve(const char *name, int request)
{
    const struct handler *h = find_handler(name);
    struct ctx *c;
    int r;

    if (h == NULL)
        return -1;
    c = malloc(sizeof *c);
    if (c == NULL)
        return -1;
    c->calls = 0;
    c->scratch = malloc(64);
    if (c->scratch == NULL) {
        free(c);
        return -1;
    }
    r = h->handle(request);
    c->calls++;
    return r;                                   // expect: leak c
}
