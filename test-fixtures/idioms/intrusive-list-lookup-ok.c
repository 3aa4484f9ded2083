// fixture: idioms/intrusive-list-lookup-ok — a list searched with container_of still keeps the blocks linked into it
#include <stddef.h>
#include <stdlib.h>

/*
 * Idiom: an intrusive list whose lookup turns each `struct list_head *` back
 * into its entry with `container_of` (`(type *)((char *)ptr - offsetof(...))`).
 * That conversion moves from a member to the struct around it; it does not
 * reinterpret memory, so the entry's own fields (`data`, a `void *` holding
 * anything) stay apart from the list's `next`/`prev` links. The entry linked
 * by `list_add_tail` is kept by the list when the local `h` is lost.
 * Leaking twin: intrusive-list-lookup-leak.c.
 */

struct list_head {
    struct list_head *next, *prev;
};

#define container_of(ptr, type, member) __extension__ ({ \
    const __typeof__(((type *)0)->member) *__mptr = (ptr); \
    (type *)((char *)__mptr - offsetof(type, member)); })

static void list_insert(struct list_head *add, struct list_head *prev,
                        struct list_head *next)
{
    next->prev = add;
    add->next = next;
    add->prev = prev;
    prev->next = add;
}

static void list_add_tail(struct list_head *add, struct list_head *head)
{
    list_insert(add, head->prev, head);
}

struct entry {
    const char *name;
    void *data;
    struct list_head link;
};

struct table {
    struct list_head entries;
};

static struct entry *table_find(struct table *t, const char *name)
{
    struct list_head *p;

    for (p = t->entries.next; p != &t->entries; p = p->next) {
        struct entry *e = container_of(p, struct entry, link);
        if (e->name == name)
            return e;
    }
    return NULL;
}

int table_set(struct table *t, const char *name, void *data)
{
    struct entry *h = table_find(t, name);

    if (!h) {
        h = calloc(1, sizeof(*h));
        if (!h)
            return -1;
        h->link.next = h->link.prev = &h->link;
        h->name = name;
        list_add_tail(&h->link, &t->entries);
    }
    h->data = data;
    return 0;
}
