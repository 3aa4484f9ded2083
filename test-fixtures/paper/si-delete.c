// fixture: paper/si-delete — remove the node with a given key from a singly-linked list and free it
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row si-delete (paper: 11 probes, 0 warnings).
 * Iterative delete with a trailing `prev` pointer.  Every probe is provable
 * for any input heap, including cyclic or shared lists:
 *  - `x = cur->next` runs only while prev == NULL, i.e. in the first
 *    iteration, where cur == x still holds the old head;
 *  - `prev->next = cur->next` overwrites prev->next == cur, held by cur;
 *  - free(cur) drops cur->next, which was just copied into x or prev->next
 *    (prev == cur only for a one-node cycle, where cur->next is cur itself).
 */

typedef struct list {
    int data;
    struct list *next;
} List;

List *list_delete(List *x, int key)
{
    List *prev = NULL;
    List *cur = x;

    while (cur != NULL) {
        if (cur->data == key) {
            if (prev == NULL)
                x = cur->next;
            else
                prev->next = cur->next;
            free(cur);
            return x;
        }
        prev = cur;
        cur = cur->next;
    }
    return x;
}
