// fixture: idioms/recursive-reverse-leak — recursive list reversal that forgets to link the old successor back
#include <stdlib.h>

/*
 * The reversal of recursive-reverse-ok.c without `second->next = x`: each
 * frame cuts its node off and never links it behind its old successor.  In
 * every frame but the last, `second` (the caller's copy of the deeper frame's
 * node) is then the last reference to that node when the frame returns, and
 * main loses the old head when it stores the result over `l`.
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
    x->next = NULL;
    return rest;                    // expect: leak second
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
    l = reverse(l);                 // expect: leak l
    free_all(l);
    return 0;
}
