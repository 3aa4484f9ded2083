// fixture: idioms/calloc-zeroed-leak — an opened object is refused by its destructor
#include <stdlib.h>

/*
 * Idiom: as in calloc-zeroed-ok.c, but the caller opens the object before
 * freeing it: the destructor refuses it and the last reference is lost.
 * Fixed twin: calloc-zeroed-ok.c.
 */

struct mbox {
    int opened;
    char *path;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL)
        abort();
    return p;
}

struct mbox *mbox_new(void)
{
    struct mbox *m = xcalloc(1, sizeof(*m));
    return m;
}

void mbox_open(struct mbox *m)
{
    m->opened = 1;
}

void mbox_free(struct mbox **ptr)
{
    if (ptr == NULL || *ptr == NULL)
        return;
    struct mbox *m = *ptr;
    if (m->opened != 0)
        return;
    free(m->path);
    free(m);
    *ptr = NULL;
}

void check_new(void)
{
    struct mbox *m = mbox_new();
    mbox_open(m);
    mbox_free(&m);
}                                       // expect: leak m
