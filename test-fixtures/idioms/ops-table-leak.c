// fixture: idioms/ops-table-leak — a format's private data dropped when the handle is already set up
#include <stdlib.h>

/*
 * Idiom: a public handle embeds a base struct and is cast to its full type
 * (`struct writer *w = (struct writer *)h;`); a "set format" function
 * allocates the format's private data, as in ops-table-ok.c, but refuses a
 * handle that already has a format after allocating, and returns without
 * freeing the new data.
 * Fixed twin: ops-table-ok.c.
 */

struct handle {
    int magic;
    const char *format_name;
};

struct writer;

struct writer {
    struct handle base;
    void *format_data;
    const char *name;
    int (*write_header)(struct writer *, const char *);
    int (*finish)(struct writer *);
    int (*close)(struct writer *);
    void (*free_data)(struct writer *);
};

struct fmt_state {
    int entries;
    char pad[32];
};

static int fmt_header(struct writer *w, const char *n) { return w != NULL && n != NULL; }
static int fmt_finish(struct writer *w) { return w == NULL; }
static int fmt_close(struct writer *w) { return w == NULL; }

static void fmt_free(struct writer *w)
{
    free(w->format_data);
    w->format_data = NULL;
}

int writer_set_format(struct handle *h)
{
    struct writer *w = (struct writer *)h;
    struct fmt_state *st;

    st = calloc(1, sizeof(*st));
    if (st == NULL)
        return -1;
    if (w->format_data != NULL)
        return -1;                              // expect: leak st
    w->format_data = st;
    w->name = "fmt";
    w->write_header = fmt_header;
    w->finish = fmt_finish;
    w->close = fmt_close;
    w->free_data = fmt_free;
    w->base.format_name = "fmt archive";
    return 0;
}
