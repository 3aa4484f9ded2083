// fixture: idioms/free-wrapper-types-leak — a node refused by a full list is not released
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in free-wrapper-types-ok.c, but when the list is full the new
 * node is not released before the error return.
 * Fixed twin: free-wrapper-types-ok.c.
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
    if (list_add(l, n) < 0)
        return -1;                      // expect: leak n
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
