// fixture: idioms/dealloc-wrapper-leak — the deallocator wrapper exists but the caller never calls it
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a deallocator wrapper.  node_free(n) frees the node and the
 * label it owns, but label_length() forgets to call it: `n` is the last
 * reference to the node when the function returns (the label hangs off
 * the lost node, so it is not a separate loss).
 * Fixed twin: dealloc-wrapper-ok.c.
 */

struct node {
    char *label;
    struct node *next;
};

static struct node *node_new(const char *label)
{
    struct node *n = malloc(sizeof *n);

    if (n == NULL)
        return NULL;
    n->label = strdup(label);
    if (n->label == NULL) {
        free(n);
        return NULL;
    }
    n->next = NULL;
    return n;
}

void node_free(struct node *n)
{
    if (n == NULL)
        return;
    free(n->label);
    free(n);
}

int label_length(const char *label)
{
    struct node *n = node_new(label);
    int len;

    if (n == NULL)
        return -1;
    len = (int)strlen(n->label);
    return len;                                 // expect: leak n
}
