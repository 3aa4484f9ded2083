// fixture: idioms/capacity-check-ok — an array that grows before the store always takes the element
#include <stdbool.h>
#include <stdlib.h>

/*
 * Idiom: a growable array of pointers (neomutt's ARRAY_ADD, many projects'
 * vec_push): when full it grows to `size + 1` slots, and the store that
 * follows tests `capacity > size` again. Growing aborts on failure, so the
 * second test always holds and the element is always stored: the two tests
 * compare the same two numbers, and the second is decided by the first and
 * by what the growth set. Leaking twin: capacity-check-leak.c.
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
        abort();
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
    return 0;
}
