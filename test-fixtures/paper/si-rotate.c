// fixture: paper/si-rotate — move the first element of a list to its end, given a pointer to the last element
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-rotate (paper: 6 probes, 1 warning, 1 leak "when its
 * second argument doesn't point to the last element").
 * The routine trusts `last` to be the last element of `x`.  The analysis
 * assumes any input heap, so two probes cannot be proved; both are real
 * losses for some malformed input from an unknown caller, and there is no
 * allocation in this file, so the verdict is `unproved input-dependent`.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_rotate(List *x, List *last)
{
    List *first;

    if (x != NULL && x->next != NULL) {
        first = x;
        x = first->next;
        first->next = NULL;
        /*
         * The statement the paper warns about.  For well-formed input
         * last->next is NULL and nothing is lost.  If `last` is not the
         * last element, last->next points to the rest of the list after
         * `last` (or to any cell of a malformed input), and this field is
         * its only reference: overwriting it loses that cell.
         */
        last->next = first;    // expect: unproved input-dependent
    }
    /*
     * `last` is a formal that is never stored anywhere.  In a well-formed
     * list its cell is also referenced by its predecessor's next field, but
     * nothing in this function shows that: for an input where the cell is
     * referenced only by the argument, `last` going out of scope here loses
     * it.  Backwards, the probe reaches the entry of a function with no
     * known caller, hence input-dependent (see the README on formals).
     */
    return x;                  // expect: unproved input-dependent
}
