// fixture: paper/dsw-list — Deutsch-Schorr-Waite marking of a list: reverse links going forward, restore them coming back
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row dsw-list (paper: 14 probes, 0 warnings).
 * The forward walk marks each node and reverses its link so the way back
 * is remembered (`prev` is the stack); the backward walk reverses the links
 * again, restoring the original list, and returns its head.  Both loops are
 * pointer rotations in which every overwritten value is still held by
 * another variable or field, so every probe is provable for any input.
 */

typedef struct list {
    int mark;
    struct list *next;
} List;

List *dsw_list(List *x)
{
    List *prev = NULL;
    List *next;

    while (x != NULL) {
        x->mark = 1;
        next = x->next;
        x->next = prev;
        prev = x;
        x = next;
    }
    while (prev != NULL) {
        next = prev->next;
        prev->next = x;
        x = prev;
        prev = next;
    }
    return x;
}
