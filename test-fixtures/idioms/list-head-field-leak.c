// fixture: idioms/list-head-field-leak — a full list refuses the string and nobody frees it
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in list-head-field-ok.c, but the insert also refuses a full list
 * (`h->count >= 64`) and returns NULL without taking the string: callers
 * that hand it a fresh string and ignore the result leak it then.
 * Fixed twin: list-head-field-ok.c.
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

    if (h == NULL || h->count >= 64)
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
    list_insert_head(&m->temps, strdup(name));  // expect: leak strdup()
}

void module_add_name(struct module *m, const char *name)
{
    char *copy = strdup(name);

    if (copy == NULL)
        return;
    list_insert_head(&m->names, copy);
}                                               // expect: leak copy
