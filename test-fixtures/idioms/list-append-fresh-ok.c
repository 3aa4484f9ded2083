// fixture: idioms/list-append-fresh-ok — the tail a new element is appended to is not the new element
#include <stdlib.h>

/*
 * Idiom: append a new element at the end of a sorted list, refusing
 * duplicates. The element comes from an allocator wrapper and nothing points
 * to it until it is linked: the `last` element found by walking the list is
 * another block, so `last->next = e` stores a second reference and dropping
 * the returned pointer loses nothing.
 * Leaking twin: list-append-fresh-leak.c.
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
        if (cur->key == key) {
            free(e);
            return NULL;
        }
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
