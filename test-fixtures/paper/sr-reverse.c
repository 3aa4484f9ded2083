// fixture: paper/sr-reverse — in-place reversal of a singly-linked list, recursively
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row sr-reverse (paper: 11 probes, 0 warnings).
 * rev_rec(x) reverses the list after x, links x behind its old successor
 * and returns the new head.  A terminating call only follows next fields
 * until NULL, so the list it walks is acyclic, and when the recursive call
 * returns, x->next (the old second node) is the tail of the reversed rest:
 *   x->next->next = x    overwrites NULL (set by the callee, or already
 *                        NULL when x->next was the last node)
 *   x->next = NULL       the old second node is now referenced by its old
 *                        successor's next field, or is `rest` itself
 *   return rest          x is referenced by the old second node's next
 */

typedef struct list {
    int data;
    struct list *next;
} List;

static List *rev_rec(List *x)
{
    List *rest;

    if (x == NULL || x->next == NULL)
        return x;
    rest = rev_rec(x->next);
    x->next->next = x;
    x->next = NULL;
    return rest;
}

List *list_reverse(List *x)
{
    return rev_rec(x);
}
