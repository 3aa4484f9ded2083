// fixture: paper/dsw-tree — Deutsch-Schorr-Waite marking of a binary tree (graph) by pointer reversal
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row dsw-tree (paper: 18 probes, 1 warning, 0 leaks: the
 * warning was a false positive).  Here every probe must be proved.
 * `t` is the current node, `p` the top of the stack threaded through the
 * reversed child fields, `flag` tells which child of a stacked node holds
 * the reversed pointer.  Marked nodes are not entered again, so shared and
 * cyclic inputs terminate; the walk only follows links it reversed itself.
 * Each step rotates pointer values among t, p, q and one or two fields of a
 * node, so every overwritten value is still held elsewhere:
 *   push:    q = t->left; t->left = p; p = t; t = q;
 *   pop:     q = p->right; p->right = t; t = p; p = q;
 *   swing:   q = p->right; p->right = p->left; p->left = t; t = q;
 * The structure is restored when the stack is empty; t is its root.
 */

typedef struct tree {
    int mark;
    int flag;
    struct tree *left;
    struct tree *right;
} Tree;

Tree *dsw_tree(Tree *t)
{
    Tree *p = NULL;
    Tree *q;

    for (;;) {
        while (t != NULL && t->mark == 0) {
            t->mark = 1;
            t->flag = 0;
            q = t->left;
            t->left = p;
            p = t;
            t = q;
        }
        while (p != NULL && p->flag == 1) {
            q = p->right;
            p->right = t;
            t = p;
            p = q;
        }
        if (p == NULL)
            break;
        q = p->right;
        p->right = p->left;
        p->left = t;
        t = q;
        p->flag = 1;
    }
    return t;
}
