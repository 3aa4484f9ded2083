// fixture: idioms/caller-nonnull-ok — an insert refuses a NULL list, but every caller passes a list
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: `list_insert` returns NULL without taking the string when the list
 * head is NULL. `add_name` hands it a fresh string and ignores the result:
 * that loses the string only if `names` is NULL, a condition on
 * `add_name`'s input. Following that condition into the callers settles
 * it: each passes the address of a member (`&m->names`) or of a local,
 * never NULL, so the string always ends in the list.
 * Leaking twin: caller-nonnull-leak.c.
 */

struct node {
    char *data;
    struct node *next;
};

struct list {
    struct node *head;
};

struct module {
    int id;
    struct list names;
};

struct node *list_insert(struct list *h, char *s)
{
    struct node *n;

    if (h == NULL)
        return NULL;
    n = malloc(sizeof(*n));
    if (n == NULL)
        abort();
    n->data = s;
    n->next = h->head;
    h->head = n;
    return n;
}

static void add_name(struct list *names, const char *name)
{
    list_insert(names, strdup(name));
}

void module_register(struct module *m, const char *name)
{
    add_name(&m->names, name);
}

static void list_clear(struct list *l)
{
    while (l->head) {
        struct node *n = l->head;

        l->head = n->next;
        free(n->data);
        free(n);
    }
}

int main(void)
{
    struct module m = {1, {NULL}};
    struct list scratch = {NULL};

    module_register(&m, "alpha");
    add_name(&scratch, "beta");
    list_clear(&m.names);
    list_clear(&scratch);
    return 0;
}
