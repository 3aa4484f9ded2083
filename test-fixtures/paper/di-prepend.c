// fixture: paper/di-prepend — insert a new node in front of a node of a doubly-linked list
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row di-prepend (paper: 7 probes, 1 warning, 1 leak "if the
 * input doesn't satisfy the doubly-linked list invariant").
 * Like GLib's prepend, `list` may be any node of a list; the new node is
 * linked between list->prev and list.
 * Proved: `node->prev = list->prev` (overwrites the NULL just stored) and
 * `list->prev = node` (the old list->prev was copied into node->prev, a
 * field of a fresh cell, so it cannot be the same location).
 */

typedef struct dlist {
    int data;
    struct dlist *next;
    struct dlist *prev;
} DList;

DList *dlist_prepend(DList *list, int data)
{
    DList *node = malloc(sizeof(DList));

    if (node == NULL)
        return list;
    node->data = data;
    node->next = list;
    node->prev = NULL;
    if (list != NULL) {
        node->prev = list->prev;
        /*
         * Overwrites list->prev->next, which is `list` itself (held by
         * `list` and node->next) when the invariant holds.  For a malformed
         * input it may point to another cell whose only reference it is.
         */
        if (list->prev != NULL)
            list->prev->next = node;    // expect: unproved input-dependent
        list->prev = node;
    }
    return node;
}
