// fixture: idioms/deref-nonnull-ok — a pointer dereferenced on the path is not NULL in a callee's guard
#include <stdlib.h>

/*
 * Idiom: a setter guards its object (`if (!n) return;`) and stores the data
 * in it; the module init hands it fresh data and then reads `n->notify`.
 * Had `n` been NULL, that read would have crashed, so on every path that
 * returns, the setter took the data: the guard's early return, which would
 * drop it, is not on such a path.
 * Leaking twin: deref-nonnull-leak.c.
 */

struct notify {
    int observers;
};

struct app {
    struct notify *notify;
    void *module_data[8];
};

struct mod_data {
    int flags;
    char name[16];
};

static void app_set_module_data(struct app *n, int id, void *data)
{
    if (n == NULL)
        return;
    n->module_data[id] = data;
}

static int address_init(struct app *n)
{
    struct mod_data *md = calloc(1, sizeof(*md));

    if (md == NULL)
        abort();
    app_set_module_data(n, 1, md);
    return n->notify->observers;
}

int init_modules(struct app *n)
{
    return address_init(n);
}
