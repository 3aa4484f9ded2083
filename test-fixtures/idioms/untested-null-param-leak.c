// fixture: idioms/untested-null-param-leak — the function tests its list for NULL itself and forgets the label then
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in untested-null-param-ok.c, a label is made for a list that a
 * helper would drop when NULL. Here `add_link` tests `links` itself, so a
 * NULL list is an input it expects, and on that branch it logs the label and
 * returns without freeing it: a leak whatever the callers pass.
 * Fixed twin: untested-null-param-ok.c.
 */

struct link {
    char *label;
    struct link *next;
};

struct links {
    struct link *head;
    int count;
};

static struct link *list_insert(struct links *h, char *label)
{
    struct link *l;

    if (h == NULL)
        return NULL;
    l = malloc(sizeof(*l));
    if (l == NULL)
        abort();
    l->label = label;
    l->next = h->head;
    h->head = l;
    h->count++;
    return l;
}

static void add_link(struct links *links, const char *from, const char *to)
{
    char buf[256];
    char *label;

    snprintf(buf, sizeof(buf), "%s -> %s", from, to);
    label = strdup(buf);
    if (label == NULL)
        return;
    if (links == NULL) {
        fprintf(stderr, "link dropped: %s\n", label);
        return; // expect: leak label
    }
    list_insert(links, label);
}

void dump_pair(struct links *links, const char *a, const char *b)
{
    add_link(links, a, b);
    add_link(links, b, a);
}

void links_free(struct links *links)
{
    while (links->head) {
        struct link *l = links->head;

        links->head = l->next;
        free(l->label);
        free(l);
    }
    links->count = 0;
}
