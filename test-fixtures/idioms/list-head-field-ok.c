// fixture: idioms/list-head-field-ok — a string inserted into a list whose head is a struct member
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a list insert that guards against a NULL head (`if (!h) return
 * NULL;`) and stores its argument in a new node; callers pass the address of
 * a member (`&m->temps`, `&m->names`), which is never NULL, so the guard's
 * early return, where the string would be lost, cannot be taken.
 * Leaking twin: list-head-field-leak.c.
 */

struct node {
    char *data;
    struct node *next;
};

struct list {
    struct node *head;
    int count;
};

struct module {
    int id;
    struct list temps;
    struct list names;
};

struct node *list_insert_head(struct list *h, char *s)
{
    struct node *np;

    if (h == NULL)
        return NULL;
    np = calloc(1, sizeof(*np));
    if (np == NULL)
        abort();
    np->data = s;
    np->next = h->head;
    h->head = np;
    h->count++;
    return np;
}

void module_add_temp(struct module *m, const char *name)
{
    list_insert_head(&m->temps, strdup(name));
}

void module_add_name(struct module *m, const char *name)
{
    char *copy = strdup(name);

    if (copy == NULL)
        return;
    list_insert_head(&m->names, copy);
}
