// fixture: paper/si-merge — merge two sorted singly-linked lists, iteratively
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-merge (paper: 16 probes, 0 warnings).
 * Invariant: after `tail = v; v = v->next`, tail->next == v, so every
 * `tail->next = ...` overwrites a pointer still held by `a` or `b`.
 * The remainder is appended with two independent tests (at most one can
 * be true after the loop); each formal is then either NULL or stored in
 * tail->next at the return, for any input.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_merge(List *a, List *b)
{
    List *head, *tail;

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
    return head;
}
