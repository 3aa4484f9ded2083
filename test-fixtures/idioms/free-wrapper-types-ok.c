// fixture: idioms/free-wrapper-types-ok — a `void *` deallocator wrapper does not make the types it frees one
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: every type of the program is released through one `void *`
 * wrapper, `xfree`. A value handed to `xfree` never comes back out as
 * another type, so the wrapper is no reason to think a `struct list` and a
 * `struct node *` slot could be the same memory. `list_add` stores the node
 * into the list's array; the new node's last local reference is then not
 * its last reference.
 * Leaking twin: free-wrapper-types-leak.c.
 */

struct node {
    char *name;
    int id;
};

struct list {
    struct node **items;
    int count;
    int cap;
};

void xfree(void *p)
{
    free(p);
}

int list_add(struct list *l, struct node *n)
{
    if (l->count == l->cap)
        return -1;
    l->items[l->count] = n;
    l->count++;
    return 0;
}

int list_add_name(struct list *l, const char *name, int id)
{
    struct node *n = calloc(1, sizeof(*n));

    if (!n)
        return -1;
    n->id = id;
    if (list_add(l, n) < 0) {
        xfree(n);
        return -1;
    }
    return 0;
}

void list_free(struct list *l)
{
    int i;

    for (i = 0; i < l->count; i++) {
        xfree(l->items[i]->name);
        xfree(l->items[i]);
    }
    xfree(l->items);
    xfree(l);
}
