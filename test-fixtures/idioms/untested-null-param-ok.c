// fixture: idioms/untested-null-param-ok — a list passed along is never tested for NULL by the code that passes it
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: neomutt's `dot_add_link(links, …)` and its module `init(n)`
 * functions, winpr's `AcquireCredentialsHandle(…, phCredential)`. A function
 * makes a string and hands it, with a list it was given, to a helper that
 * defends itself with `if (h == NULL) return NULL;` and so drops the string
 * when the list is NULL. The function never tests `links` itself: its author
 * takes the list to be there. Whether it leaks depends on the callers, and
 * `dump_pair`, the entry of this library, has none here: the verdict is
 * `unproved: input-dependent`, not a leak.
 * Leaking twin: untested-null-param-leak.c, where `add_link` tests `links`
 * itself and forgets the label when it is NULL.
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

    snprintf(buf, sizeof(buf), "%s -> %s", from, to);
    list_insert(links, strdup(buf)); // expect: unproved input-dependent
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
