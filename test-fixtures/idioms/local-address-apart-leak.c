// fixture: idioms/local-address-apart-leak — an element is dropped on the path where the bucket is full
#include <stdlib.h>

/*
 * Idiom: as in local-address-apart-ok.c, but a bucket that already holds a
 * chain of the maximum length refuses the element and returns NULL without
 * releasing it: the element is then reachable from nothing.
 * Fixed twin: local-address-apart-ok.c.
 */

struct elem {
    struct elem *next;
    int key;
};

struct table {
    struct elem **slots;
    unsigned size;
};

void mem_free(void *ptr)
{
    void **pp = (void **) ptr;

    if (!ptr)
        return;
    free(*pp);
    *pp = NULL;
}

struct elem *table_insert(struct table *t, int key)
{
    unsigned h = (unsigned) key % t->size;
    struct elem *e = calloc(1, sizeof(*e));

    if (!e)
        return NULL;
    e->key = key;
    if (t->slots[h] && t->slots[h]->key == key) {
        mem_free(&e);
        return NULL;
    }
    if (t->slots[h] && t->slots[h]->next && t->slots[h]->next->next)
        return NULL;                    // expect: leak e
    e->next = t->slots[h];
    t->slots[h] = e;
    return e;
}

void add_keys(struct table *t, const int *keys, int n)
{
    int i;

    for (i = 0; i < n; i++)
        table_insert(t, keys[i]);
}
