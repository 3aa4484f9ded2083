// fixture: idioms/unknown-results-leak — two results of unmodelled calls are two values, not one
#include <stdlib.h>

/*
 * Idiom: a list built from a count read with atoi is dropped on an early
 * return that depends on a second atoi result. The path needs the count to
 * be positive and even and the mode to be odd: each `atoi` returns its own
 * value, so nothing contradicts it (a run with "2 1" leaks the list).
 * Fixed twin: unknown-results-ok.c.
 */

struct node {
    struct node *next;
};

static struct node *node_new(struct node *next)
{
    struct node *n = calloc(1, sizeof *n);
    if (n == NULL)
        exit(1);
    n->next = next;
    return n;
}

static struct node *list_build(int n)
{
    if (n <= 0)
        return NULL;
    return node_new(list_build(n - 1));
}

static void list_free(struct node *l)
{
    while (l != NULL) {
        struct node *next = l->next;
        free(l);
        l = next;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int count = atoi(argv[1]);
    int mode = atoi(argv[2]);
    struct node *list = list_build(count);
    if (mode % 2 == 0) {
        list_free(list);
        return 0;
    }
    if (count % 2 == 0)
        return 1;                       // expect: leak list
    list_free(list);
    return 0;
}
