// fixture: paper/sr-append — append list b to list a, recursively (with a non-recursive wrapper)
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row sr-append (paper: 11 probes, 0 warnings).
 * append_rec(a, b) returns b when a is empty and a otherwise, so
 * `a->next = append_rec(a->next, b)` stores back the old a->next (or b when
 * it was NULL).  At every return each formal is returned, NULL, or linked
 * into the list (b ends up in the last node's next field).
 * As in the paper, the recursive routine is called from a wrapper; the
 * wrapper has no caller in this file, so any input heap is possible.
 * The probes of `b` at the two returns stay `unproved (escaped)`: `b` is
 * passed down the recursion past the depth the analysis follows, and the
 * analysis does not assume what an unfollowed call does with it (the paper's
 * proof needs the recursion followed to its base).
 */

typedef struct list {
    int data;
    struct list *next;
} List;

static List *append_rec(List *a, List *b)
{
    if (a == NULL)
        return b;
    a->next = append_rec(a->next, b);
    return a;                                   // expect: unproved escaped
}

List *list_append(List *a, List *b)
{
    return append_rec(a, b);                    // expect: unproved escaped
}
