// fixture: paper/di-reverse — in-place reversal of a doubly-linked list
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row di-reverse (paper: 7 probes, 0 warnings).
 * DEVIATION from the paper: one probe here is `unproved input-dependent`.
 * A doubly-linked reversal cannot be leak-free for every input heap: each
 * node's old back link must be discarded (or, with GLib's next/prev swap,
 * the old head stays reachable only through the second node's old prev
 * field).  For a well-formed list the discarded pointer is always held
 * elsewhere; for a malformed one it can be the last reference.
 * This version reverses the next links exactly like si-reverse and sets
 * each prev to the old next, so only that write depends on the input.
 */

typedef struct dlist {
    int data;
    struct dlist *next;
    struct dlist *prev;
} DList;

DList *dlist_reverse(DList *x)
{
    DList *y = NULL;
    DList *t;

    while (x != NULL) {
        t = x->next;
        x->next = y;
        /*
         * Drops the old x->prev.  With the invariant it is y (the previous
         * node, still held by `y`) or NULL for the head; a malformed input
         * may make it the only reference to some other cell.
         */
        x->prev = t;            // expect: unproved input-dependent
        y = x;
        x = t;
    }
    return y;
}
