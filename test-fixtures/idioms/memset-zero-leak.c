// fixture: idioms/memset-zero-leak — cleared objects that are opened, or cleared with the size of a pointer
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in memset-zero-ok.c, but check_open opens the mailbox before
 * freeing it, so mbox_free refuses it and the last reference is lost; and
 * check_short clears only the first `sizeof(char *)` bytes, so `opened` is
 * whatever malloc left there and mbox_free may refuse it too; check_stack
 * and check_member open their cleared mailbox (a local, a member of a heap
 * account) and return without freeing. Fixed twin: memset-zero-ok.c.
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

void check_open(void)
{
    struct mbox *m = malloc(sizeof *m);
    if (m == NULL)
        return;
    memset(m, 0, sizeof *m);
    m->opened = 1;
    mbox_free(&m);
}                                       // expect: leak m

void check_short(void)
{
    struct mbox *m = malloc(sizeof *m);
    if (m == NULL)
        return;
    memset(m, 0, sizeof(char *));
    mbox_free(&m);
}                                       // expect: leak m

int check_stack(void)
{
    struct mbox box;
    memset(&box, 0, sizeof box);
    box.path = malloc(16);
    box.opened = 1;
    if (box.opened)
        return -1;                      // expect: leak box.path
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
    acc->inbox.opened = 1;
    if (acc->inbox.opened)
        return -1;                      // expect: leak acc
    free(acc);
    return 0;
}

/* `sizeof *v` does not cover a flexible array member: its elements keep
 * whatever they held, so this stays open (a caller may have stored the only
 * reference to a block there). */
struct vec {
    int n;
    char *items[];
};

void take_first(struct vec *v)
{
    memset(v, 0, sizeof *v);
    char *first = v->items[0];
    v->items[0] = NULL;
    first = NULL;                       // expect: unproved input-dependent
}
