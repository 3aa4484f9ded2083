// fixture: idioms/capacity-check-leak — an array that may fail to grow refuses the element, and the caller ignores it
#include <stdbool.h>
#include <stdlib.h>

/*
 * Idiom: as in capacity-check-ok.c, but growing returns without growing
 * when realloc fails: the store's `capacity > size` test is then false,
 * items_add returns false, and item_register ignores that and loses the
 * item. Fixed twin: capacity-check-ok.c.
 */

struct item {
    int v;
};

struct items {
    size_t size;
    size_t capacity;
    struct item **entries;
};

static void items_grow(struct items *a, size_t n)
{
    struct item **e = realloc(a->entries, n * sizeof *e);
    if (e == NULL)
        return;
    a->entries = e;
    a->capacity = n;
}

static bool items_add(struct items *a, struct item *it)
{
    if (a->capacity <= a->size)
        items_grow(a, a->size + 1);
    if (a->capacity > a->size) {
        a->entries[a->size++] = it;
        return true;
    }
    return false;
}

struct items all_items;

int item_register(int v)
{
    struct item *it = malloc(sizeof *it);
    if (it == NULL)
        return -1;
    it->v = v;
    items_add(&all_items, it);
    return 0;                           // expect: leak it
}
