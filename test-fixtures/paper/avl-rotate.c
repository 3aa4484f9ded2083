// fixture: paper/avl-rotate — single left and right rotations of an AVL tree node
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row avl-rotate (paper: 6 probes, 0 warnings).
 * rotate_right: the left child l becomes the root.  `n->left = l->right`
 * overwrites n->left == l (held by `l`); `l->right = n` overwrites the old
 * l->right, just copied into n->left; n ends up stored in l->right.
 * rotate_left is the mirror image.  Heights are recomputed with integer
 * code only.  Every probe is provable for any input.
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

Avl *rotate_right(Avl *n)
{
    Avl *l = n->left;
    int h1, h2;

    n->left = l->right;
    l->right = n;
    h1 = n->left != NULL ? n->left->height : 0;
    h2 = n->right != NULL ? n->right->height : 0;
    n->height = 1 + max_int(h1, h2);
    h1 = l->left != NULL ? l->left->height : 0;
    l->height = 1 + max_int(h1, n->height);
    return l;
}

Avl *rotate_left(Avl *n)
{
    Avl *r = n->right;
    int h1, h2;

    n->right = r->left;
    r->left = n;
    h1 = n->left != NULL ? n->left->height : 0;
    h2 = n->right != NULL ? n->right->height : 0;
    n->height = 1 + max_int(h1, h2);
    h2 = r->right != NULL ? r->right->height : 0;
    r->height = 1 + max_int(n->height, h2);
    return r;
}
