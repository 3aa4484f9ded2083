// fixture: idioms/recursion-revisit-leak — a recursive walk that marks nodes before recursing, so a cyclic list ends the recursion and leaks
#include <stdlib.h>

/*
 * walk() sets n->mark before it recurses, so on a cyclic list the recursion
 * stops when it meets a marked node again. That frame stores a fresh block in
 * n->next; the outer frame for the same node then overwrites n->next with the
 * result of its own call, and the block is lost (main builds a two-node
 * cycle). The write before the recursive call is what makes this possible:
 * without it two frames with the same node would recurse forever, which is
 * the argument reductio uses for pure-descent recursions (sr-append,
 * recursion-revisit-ok.c). Here that argument must not apply, so the
 * overwrite may not come out proved. The leak needs the case split on
 * `n == n` deep in the recursion, so it is reported unproved, not leak.
 */

struct node {
    int mark;
    struct node *next;
};

static struct node *walk(struct node *n)
{
    struct node *r;

    if (n == NULL)
        return NULL;
    if (n->mark) {
        n->next = malloc(sizeof *n);
        if (n->next != NULL) {
            n->next->mark = 1;
            n->next->next = NULL;
        }
        return NULL;
    }
    n->mark = 1;
    r = walk(n->next);
    n->next = r;               // expect: unproved
    return n;
}

int main(void)
{
    struct node *a = malloc(sizeof *a);
    struct node *b = malloc(sizeof *b);

    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return 1;
    }
    a->mark = 0;
    b->mark = 0;
    a->next = b;
    b->next = a;
    walk(a);
    free(a);
    free(b);
    return 0;
}
