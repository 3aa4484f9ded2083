// fixture: paper/di-delete — unlink and free the node with a given key in a doubly-linked list
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row di-delete (paper: 9 probes, 2 warnings, 2 leaks "if the
 * input doesn't satisfy the doubly-linked list invariant").
 * For a well-formed list (n->next->prev == n, n->prev->next == n, the head
 * has prev == NULL) nothing leaks.  Four probes drop a pointer whose target
 * is guaranteed to be referenced elsewhere only by that invariant; for a
 * malformed input from an unknown caller each one loses a last reference,
 * so each is `unproved input-dependent`.  All other probes are proved.
 */

typedef struct dlist {
    int data;
    struct dlist *next;
    struct dlist *prev;
} DList;

DList *dlist_delete(DList *list, int key)
{
    DList *cur = list;

    while (cur != NULL && cur->data != key)
        cur = cur->next;
    if (cur == NULL)
        return list;
    if (cur == list)
        list = cur->next;
    else
        /*
         * Overwrites cur->prev->next, which is cur (still held by `cur`)
         * when the invariant holds.  If cur->prev->next points to some
         * other cell, this field may be its only reference.
         */
        cur->prev->next = cur->next;    // expect: unproved input-dependent
    if (cur->next != NULL)
        /*
         * Overwrites cur->next->prev, which is cur when the invariant
         * holds; otherwise it may be the only reference to another cell.
         */
        cur->next->prev = cur->prev;    // expect: unproved input-dependent
    /*
     * free(cur) drops both pointer fields of cur (two probes on this line).
     * cur->prev: after the unlink its target is referenced by
     * cur->next->prev only if cur has a successor; otherwise only its own
     * predecessor's next field (or `list`) holds it, which the invariant
     * guarantees but the code does not establish.
     * cur->next: on the `cur == list` path it is held by `list` (proved);
     * on the other path it is held by cur->prev->next, unless
     * cur->prev == cur (malformed), where that write was a no-op.
     */
    free(cur);                          // expect: unproved input-dependent; unproved input-dependent
    return list;
}
