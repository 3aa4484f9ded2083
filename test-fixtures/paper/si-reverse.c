// fixture: paper/si-reverse — in-place reversal of a singly-linked list (the paper's Figure 1)
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-reverse (paper: 9 probes, 0 warnings); this is the
 * running example of section 3.  Each overwritten value is still held by
 * another variable or field at the point of the write:
 *   t = x->next     old t == x (from `x = t`)
 *   x->next = y     old x->next saved in t
 *   y = x           old y stored in x->next just before
 *   x = t           old x held by y
 * and at the return x == NULL, t == x, y is returned.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_reverse(List *x)
{
    List *y, *t;

    y = NULL;
    while (x != NULL) {
        t = x->next;
        x->next = y;
        y = x;
        x = t;
    }
    return y;
}
