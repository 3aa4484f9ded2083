// fixture: idioms/local-address-apart-ok — a local whose address only goes to a free-and-null helper is no array slot
#include <stdlib.h>

/*
 * Idiom: a hash insert keeps its new element in a local `e` and, on the
 * duplicate-key path, releases it with a `FREE(&e)`-style helper that frees
 * `*pp` and sets it to NULL. Taking `&e` puts `e` in the memory of its type,
 * where the bucket array `t->slots[h]` also lives; but `&e` only ever goes to
 * `mem_free`, which keeps no copy of it, so no pointer loaded from memory
 * can point to `e`: the store into `t->slots[h]` is a second reference, and
 * dropping the returned pointer loses nothing.
 * Leaking twin: local-address-apart-leak.c.
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
