// fixture: paper/si-create — build a singly-linked list of n nodes, iteratively
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-create (paper: 5 probes, 0 warnings).
 * Each new node is pushed at the front.  The old front is saved in the new
 * node's next field before `x` is overwritten, so no assignment loses a
 * reference; on allocation failure the partial list is returned.
 * Every probe is provable for any input.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_create(int n)
{
    List *x = NULL;
    List *t;

    while (n > 0) {
        t = malloc(sizeof(List));
        if (t == NULL)
            return x;
        t->data = n;
        t->next = x;
        x = t;
        n--;
    }
    return x;
}
