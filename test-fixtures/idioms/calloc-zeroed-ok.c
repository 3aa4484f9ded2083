// fixture: idioms/calloc-zeroed-ok — a field of calloc'd memory is 0 until something stores into it
#include <stdlib.h>

/*
 * Idiom: the destructor refuses an object that is still open
 * (neomutt's mailbox_free). The object comes from calloc and is never
 * opened, so the refusing branch is never taken: every byte calloc
 * returns is 0. Leaking twin: calloc-zeroed-leak.c.
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
    mbox_free(&m);
}
