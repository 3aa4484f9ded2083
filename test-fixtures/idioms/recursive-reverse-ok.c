// fixture: idioms/recursive-reverse-ok — recursive list reversal through a temporary
// mode: strict
#include <stdlib.h>

/*
 * reverse() keeps the old successor in `second`, reverses the rest of the
 * list from it, then links `second` back to the frame's node.  The analysis
 * must know that the deeper calls wrote nothing but the next fields of the
 * nodes after `x`: only then is `second->next` (overwritten here) known to
 * be NULL, and `x->next` (cleared here) known to be `second`, which the
 * rest of the list still references.
 */

struct node {
    int value;
    struct node *next;
};

static struct node *reverse(struct node *x)
{
    struct node *second;
    struct node *rest;

    if (x == NULL || x->next == NULL)
        return x;
    second = x->next;
    rest = reverse(second);
    second->next = x;
    x->next = NULL;
    return rest;
}

static struct node *build(int n)
{
    struct node *head = NULL;
    int i;

    for (i = 0; i < n; i++) {
        struct node *t = malloc(sizeof *t);

        if (t == NULL)
            break;
        t->value = i;
        t->next = head;
        head = t;
    }
    return head;
}

static void free_all(struct node *x)
{
    while (x != NULL) {
        struct node *next = x->next;

        free(x);
        x = next;
    }
}

int main(int argc, char **argv)
{
    struct node *l = build(argc + 3);

    (void)argv;
    l = reverse(l);
    free_all(l);
    return 0;
}
