// fixture: idioms/dealloc-wrapper-ok — the object is released through its deallocator wrapper
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a deallocator wrapper.  node_free(n) frees the node and the
 * label it owns (and accepts NULL).  label_length() releases its node
 * through the wrapper, so nothing leaks.  Leaking twin: dealloc-wrapper-leak.c.
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
    node_free(n);
    return len;
}
