// fixture: idioms/list-append-fresh-leak — a duplicate key drops the new element without freeing it
#include <stdlib.h>

/*
 * Idiom: as in list-append-fresh-ok.c, but a duplicate key returns
 * without freeing the new element.
 * Fixed twin: list-append-fresh-ok.c.
 */

struct elem {
    struct elem *next;
    int key;
};

struct list {
    struct elem *head;
    int count;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (!p)
        abort();
    return p;
}

struct elem *list_append(struct list *l, int key)
{
    struct elem *e = xmalloc(sizeof(*e));
    struct elem *last = NULL;
    struct elem *cur;

    e->key = key;
    for (cur = l->head; cur; cur = cur->next) {
        if (cur->key == key)
            return NULL;                // expect: leak e
        last = cur;
    }
    if (last)
        last->next = e;
    else
        l->head = e;
    e->next = cur;
    l->count++;
    return e;
}

void add_all(struct list *l, const int *keys, int n)
{
    int i;

    for (i = 0; i < n; i++)
        list_append(l, keys[i]);
}
