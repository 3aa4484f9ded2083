// fixture: paper/sr-rev-leak — buggy recursive reversal that loses the reversed rest of the list
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row sr-rev-leak (paper: 13 probes, 1 warning, 1 leak).
 * rev_rec is the recursive reversal of sr-reverse.c with the classic bug:
 * it returns x (the old head, now the tail of the reversed list) instead of
 * `rest` (the new head).  In the frame of the next-to-last node, `rest` is
 * the old last node; after `x->next = NULL` nothing else references it, so
 * when `rest` goes out of scope the reversed rest of the list is lost.
 * (In the other frames `rest` is still referenced by the next field of its
 * old successor, a node already lost but still allocated, so this return is
 * the only statement that loses a last reference.)
 * To make the leak a real one (validated by an allocation site rather than
 * by an unknown caller's input) the file builds the list itself in main;
 * everything else it allocates is freed.
 */

typedef struct list {
    int data;
    struct list *next;
} List;

static List *rev_rec(List *x)
{
    List *rest;

    if (x == NULL || x->next == NULL)
        return x;
    rest = rev_rec(x->next);
    x->next->next = x;
    x->next = NULL;
    return x;                  // expect: leak rest
}

static List *list_reverse(List *x)
{
    return rev_rec(x);
}

static List *build(int n)
{
    List *x = NULL;
    int i;

    for (i = 0; i < n; i++) {
        List *t = malloc(sizeof(List));
        if (t == NULL)
            break;
        t->data = i;
        t->next = x;
        x = t;
    }
    return x;
}

static void free_list(List *x)
{
    while (x != NULL) {
        List *next = x->next;
        free(x);
        x = next;
    }
}

int main(void)
{
    List *l = build(4);

    l = list_reverse(l);
    free_list(l);
    return 0;
}
