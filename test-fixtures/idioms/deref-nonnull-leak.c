// fixture: idioms/deref-nonnull-leak — data handed to a setter whose object may be NULL is lost
#include <stdlib.h>

/*
 * Idiom: as in deref-nonnull-ok.c, but the init reads the object only when it
 * is there: with no object, the setter's guard returns and the fresh data is
 * lost.
 * Fixed twin: deref-nonnull-ok.c.
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
    if (n == NULL)
        return 0;                               // expect: leak md
    return n->notify->observers;
}

int init_modules(struct app *n)
{
    address_init(NULL);
    return address_init(n);
}
