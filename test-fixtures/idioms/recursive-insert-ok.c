// fixture: idioms/recursive-insert-ok — insert into a binary search tree recursively, storing each result back
// mode: strict
#include <stdlib.h>

/*
 * tree_insert(t, key) returns t itself, or the new leaf when t is empty, so
 * `t->left = tree_insert(t->left, key)` stores back the old subtree (or the
 * new leaf where it was NULL). Every call below a frame gets a node further
 * down the tree, so no deeper call writes the field the caller is about to
 * overwrite (pure descent), and tree_new only writes the block it has just
 * allocated, so a call to it changes nothing the caller can name. When
 * allocation fails the tree is returned unchanged.
 */

struct tree {
    int key;
    struct tree *left;
    struct tree *right;
};

static struct tree *tree_new(int key)
{
    struct tree *t = malloc(sizeof *t);

    if (t == NULL)
        return NULL;
    t->key = key;
    t->left = NULL;
    t->right = NULL;
    return t;
}

static struct tree *tree_insert(struct tree *t, int key)
{
    if (t == NULL)
        return tree_new(key);
    if (key < t->key)
        t->left = tree_insert(t->left, key);
    else if (key > t->key)
        t->right = tree_insert(t->right, key);
    return t;
}

struct tree *tree_add(struct tree *t, int key)
{
    return tree_insert(t, key);
}
