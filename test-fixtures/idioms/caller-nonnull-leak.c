// fixture: idioms/caller-nonnull-leak — one caller passes a list that may be NULL
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in caller-nonnull-ok.c, but one caller passes `m->extra`, a
 * pointer member that may be NULL: then `list_insert` refuses the string
 * and `add_name` drops it.
 * Fixed twin: caller-nonnull-ok.c.
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
    struct list *extra;
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
    list_insert(names, strdup(name));   // expect: leak strdup()
}

void module_register(struct module *m, const char *name)
{
    add_name(&m->names, name);
    add_name(m->extra, name);
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
    struct module m = {1, {NULL}, NULL};
    struct list scratch = {NULL};

    module_register(&m, "alpha");
    add_name(&scratch, "beta");
    list_clear(&m.names);
    list_clear(&scratch);
    return 0;
}
