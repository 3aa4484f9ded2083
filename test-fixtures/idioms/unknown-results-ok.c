// fixture: idioms/unknown-results-ok — two results of unmodelled calls are two values, not one
#include <stdlib.h>

/*
 * Idiom: as in unknown-results-leak.c, but the early return frees the list
 * first: no path loses it, whatever the two values.
 * Leaking twin: unknown-results-leak.c.
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
    if (count % 2 == 0) {
        list_free(list);
        return 1;
    }
    list_free(list);
    return 0;
}
