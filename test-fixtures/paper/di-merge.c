// fixture: paper/di-merge — merge two sorted doubly-linked lists
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row di-merge (paper: 19 probes, 0 warnings).
 * DEVIATION from the paper: one probe here is `unproved input-dependent`.
 * Merging must give nodes new back links, discarding the old ones; for a
 * well-formed input the old prev targets are nodes of the merged list, but
 * for a malformed input an old prev may be the last reference to a cell.
 * The next links are merged exactly as in si-merge (all proved); the back
 * links are then rebuilt in one pass, so only that write is unproved.
 */

typedef struct dlist {
    int data;
    struct dlist *next;
    struct dlist *prev;
} DList;

DList *dlist_merge(DList *a, DList *b)
{
    DList *head, *tail, *cur, *prev;

    if (a == NULL)
        return b;
    if (b == NULL)
        return a;
    if (a->data <= b->data) {
        head = a;
        a = a->next;
    } else {
        head = b;
        b = b->next;
    }
    tail = head;
    while (a != NULL && b != NULL) {
        if (a->data <= b->data) {
            tail->next = a;
            tail = a;
            a = a->next;
        } else {
            tail->next = b;
            tail = b;
            b = b->next;
        }
    }
    if (a != NULL)
        tail->next = a;
    if (b != NULL)
        tail->next = b;
    prev = NULL;
    for (cur = head; cur != NULL; cur = cur->next) {
        /*
         * Drops the old cur->prev: a node of the merged list (or NULL) when
         * both inputs are well formed, possibly the only reference to some
         * cell otherwise.
         */
        cur->prev = prev;       // expect: unproved input-dependent
        prev = cur;
    }
    return head;
}
