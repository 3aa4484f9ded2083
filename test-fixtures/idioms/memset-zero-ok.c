// fixture: idioms/memset-zero-ok — an object cleared with memset before use is released by its destructor
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: `memset(p, 0, sizeof *p)` right after allocating (or before
 * reusing) a struct. Every byte is zero: its pointer fields are NULL and its
 * flags 0. mbox_free refuses an opened mailbox; a cleared one is not opened,
 * so check_new and check_typed free it, and the early returns of check_stack
 * and check_member (which clears only the account's inbox, a member) for an
 * opened mailbox are never taken. Leaking twin: memset-zero-leak.c.
 */

struct mbox {
    char *path;
    int opened;
};

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
    struct mbox *m = malloc(sizeof *m);
    if (m == NULL)
        return;
    memset(m, 0, sizeof *m);
    mbox_free(&m);
}

void check_typed(void)
{
    struct mbox *m = malloc(sizeof(struct mbox));
    if (m == NULL)
        return;
    memset(m, 0, sizeof(struct mbox));
    mbox_free(&m);
}

int check_stack(void)
{
    struct mbox box;
    memset(&box, 0, sizeof box);
    box.path = malloc(16);
    if (box.opened)
        return -1;
    free(box.path);
    return 0;
}

struct account {
    int id;
    struct mbox inbox;
};

int check_member(void)
{
    struct account *acc = malloc(sizeof *acc);
    if (acc == NULL)
        return -1;
    acc->id = 1;
    memset(&acc->inbox, 0, sizeof acc->inbox);
    if (acc->inbox.opened)
        return -1;
    free(acc);
    return 0;
}
