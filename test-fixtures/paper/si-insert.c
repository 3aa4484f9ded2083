// fixture: paper/si-insert — insert a new key into a sorted singly-linked list, iteratively
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-insert (paper: 13 probes, 1 warning, 0 leaks: the
 * warning was a false positive).  Here every probe must be proved:
 *  - `x = node` runs only when prev == NULL, i.e. the loop never advanced,
 *    so cur == x and the old head is held by cur and node->next;
 *  - `prev->next = node` overwrites prev->next == cur, saved in node->next.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_insert(List *x, int key)
{
    List *node, *prev, *cur;

    node = malloc(sizeof(List));
    if (node == NULL)
        return x;
    node->data = key;
    prev = NULL;
    cur = x;
    while (cur != NULL && cur->data < key) {
        prev = cur;
        cur = cur->next;
    }
    node->next = cur;
    if (prev == NULL)
        x = node;
    else
        prev->next = node;
    return x;
}
