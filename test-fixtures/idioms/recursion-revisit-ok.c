// fixture: idioms/recursion-revisit-ok — a recursive walk that only reads before recursing: it never meets a node twice and returns
// mode: strict
#include <stdlib.h>

/*
 * drop_after(n, v) frees the node after each node whose value is v, from n
 * on, and returns n. Before its recursive call a frame only reads (n == NULL),
 * and the only argument that varies is the node, so two frames of one
 * recursion with the same node would recurse forever: in a run where the
 * inner call returns, the frames' nodes all differ. That is what proves
 * `n->next = drop_after(n->next, v)`: no deeper frame writes the caller's
 * n->next, so its old value (which the call returns) is not lost.
 */

struct node {
    int val;
    struct node *next;
};

static struct node *drop_after(struct node *n, int v)
{
    struct node *rest;

    if (n == NULL)
        return NULL;
    n->next = drop_after(n->next, v);
    if (n->val == v && n->next != NULL) {
        rest = n->next->next;
        free(n->next);
        n->next = rest;
    }
    return n;
}

struct node *list_drop_after(struct node *n, int v)
{
    return drop_after(n, v);
}
