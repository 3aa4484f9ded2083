// fixture: paper/sr-insert — insert a new key into a sorted singly-linked list, recursively
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row sr-insert (paper: 11 probes, 2 warnings, 0 leaks: both
 * warnings were false positives).  Here every probe must be proved.
 * insert_rec(x, key) returns either x itself or a new node whose next is x,
 * so `x->next = insert_rec(x->next, key)` never loses the old x->next; if
 * malloc fails the list is returned unchanged.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

static List *insert_rec(List *x, int key)
{
    List *node;

    if (x == NULL || key <= x->data) {
        node = malloc(sizeof(List));
        if (node == NULL)
            return x;
        node->data = key;
        node->next = x;
        return node;
    }
    x->next = insert_rec(x->next, key);
    return x;
}

List *list_insert(List *x, int key)
{
    return insert_rec(x, key);
}
