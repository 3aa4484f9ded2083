// fixture: idioms/container-of-write-ok — a callee that reaches the struct through its list member frees the field before clearing it
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in container-of-write-leak.c, but the callee frees the string in
 * the field before it clears it.
 * Leaking twin: container-of-write-leak.c.
 */

struct list_head {
    struct list_head *next, *prev;
};

#define container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

struct node {
    int id;
    struct list_head link;
    char *name;
};

static void node_forget(struct list_head *l)
{
    struct node *n = container_of(l, struct node, link);
    free(n->name);
    n->name = NULL;
}

int node_rename(struct node *n, const char *name)
{
    char *s = strdup(name);

    if (!s)
        return -1;
    n->name = s;
    node_forget(&n->link);
    return 0;
}
