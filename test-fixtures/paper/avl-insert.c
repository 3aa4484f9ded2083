// fixture: paper/avl-insert — recursive AVL insertion with rebalancing (with a non-recursive wrapper)
// mode: strict
#include <stdlib.h>

/*
 * Figure 6, row avl-insert (paper: 31 probes, 2 warnings, 0 leaks).
 * For a well-formed tree, insert_rec(t, key) returns a fresh node
 * (t == NULL), t itself (duplicate key) or balance(t), whose result is t or
 * a rotated subtree containing t, so `t->left = insert_rec(t->left, key)`
 * never loses the old subtree.  If malloc fails for an empty subtree, NULL
 * is returned and NULL is stored back: nothing is lost.
 * For any input heap, the two recursive stores do leak: with a back edge as
 * n0->right == n1 below n1->left, a rebalance deeper down rotates the
 * caller's own node to the top of the returned subtree, and storing it into
 * n1->left drops the only reference to the old left child.  Found by the
 * malformed-input oracle (server/tests/paper_inputs.rs), e.g. n1{key 5,
 * left n3}, n3{key -1, left n0, right n3}, n0{key 4, right n1},
 * avl_insert(n1, -2).  The paper counted both warnings as false positives.
 * The probe of `root` in avl_insert stays `unproved (escaped)`: on one path
 * the tree is handed to rotate_right past the call depth the analysis
 * follows, and it does not assume what an unfollowed call does with it.
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

static Avl *balance(Avl *n)
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

static Avl *insert_rec(Avl *t, int key)
{
    if (t == NULL) {
        Avl *n = malloc(sizeof(Avl));
        if (n == NULL)
            return NULL;
        n->key = key;
        n->height = 1;
        n->left = NULL;
        n->right = NULL;
        return n;
    }
    if (key < t->key)
        t->left = insert_rec(t->left, key);     // expect: unproved input-dependent
    else if (key > t->key)
        t->right = insert_rec(t->right, key);   // expect: unproved input-dependent
    else
        return t;
    return balance(t);
}

Avl *avl_insert(Avl *root, int key)
{
    return insert_rec(root, key);               // expect: unproved escaped
}
