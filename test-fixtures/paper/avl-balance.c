// fixture: paper/avl-balance — restore the AVL balance of a node with single or double rotations
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row avl-balance (paper: 6 probes, 1 warning, 0 leaks: the
 * warning was a false positive).  Here every probe must be proved.
 * `n->left = rotate_left(n->left)` stores back a subtree whose root's left
 * child is the old n->left; `return rotate_right(n)` returns a subtree in
 * which n is the right child of the new root (and symmetrically).
 * A malformed input with n->left->right == n makes the rotation leave the
 * old n->left pointing to itself: an unreachable cycle, which is not a
 * referencing leak (the paper's model, README "Soundness"), so the probe is
 * still proved.  The analysis reaches exactly that case and refutes it: the
 * old n->left is then referenced by its own right field.
 */

typedef struct avl {
    int key;
    int height;
    struct avl *left;
    struct avl *right;
} Avl;

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static Avl *rotate_right(Avl *n)
{
    Avl *l = n->left;

    n->left = l->right;
    l->right = n;
    n->height = 1 + max_int(n->left != NULL ? n->left->height : 0,
                            n->right != NULL ? n->right->height : 0);
    l->height = 1 + max_int(l->left != NULL ? l->left->height : 0, n->height);
    return l;
}

static Avl *rotate_left(Avl *n)
{
    Avl *r = n->right;

    n->right = r->left;
    r->left = n;
    n->height = 1 + max_int(n->left != NULL ? n->left->height : 0,
                            n->right != NULL ? n->right->height : 0);
    r->height = 1 + max_int(n->height, r->right != NULL ? r->right->height : 0);
    return r;
}

Avl *balance(Avl *n)
{
    int hl = n->left != NULL ? n->left->height : 0;
    int hr = n->right != NULL ? n->right->height : 0;

    if (hl - hr > 1) {
        int hll = n->left->left != NULL ? n->left->left->height : 0;
        int hlr = n->left->right != NULL ? n->left->right->height : 0;
        if (hlr > hll)
            n->left = rotate_left(n->left);
        return rotate_right(n);
    }
    if (hr - hl > 1) {
        int hrr = n->right->right != NULL ? n->right->right->height : 0;
        int hrl = n->right->left != NULL ? n->right->left->height : 0;
        if (hrl > hrr)
            n->right = rotate_right(n->right);
        return rotate_left(n);
    }
    n->height = 1 + max_int(hl, hr);
    return n;
}
