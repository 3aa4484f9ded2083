// fixture: idioms/container-of-write-leak — a callee that reaches the struct through its list member overwrites the owned field
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a callee given a pointer to an embedded list member gets back to the
 * struct around it with `container_of` and writes one of its fields. The
 * caller's string in that field is overwritten there without being freed: the
 * write through the container pointer is a write of `struct node`'s `name`.
 * The leak is not confirmed (the member's offset is not tracked, so the
 * caller's `n` and the callee's container pointer are not known to be one),
 * but neither the overwrite nor the caller's return may come out proved.
 * Fixed twin: container-of-write-ok.c.
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
    n->name = NULL;                     // expect: unproved
}

int node_rename(struct node *n, const char *name)
{
    char *s = strdup(name);

    if (!s)
        return -1;
    n->name = s;
    node_forget(&n->link);
    return 0;                           // expect: unproved
}
