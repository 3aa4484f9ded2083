// fixture: idioms/recursive-insert-leak — recursive tree insert that replaces the right subtree on a duplicate key
#include <stdlib.h>

/*
 * The same recursive insert as recursive-insert-ok.c, with a bug: a key that
 * is already present gets a fresh leaf stored over the node's right subtree,
 * which is lost when it is not empty (main builds 2 with a right child 3,
 * then inserts 2 again).
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
    else
        t->right = tree_new(key);          // expect: leak t->right
    return t;
}

static void tree_free(struct tree *t)
{
    if (t == NULL)
        return;
    tree_free(t->left);
    tree_free(t->right);
    free(t);
}

int main(void)
{
    struct tree *t;

    t = tree_new(2);
    if (t == NULL)
        return 1;
    t->right = tree_new(3);
    t = tree_insert(t, 2);
    tree_free(t);
    return 0;
}
