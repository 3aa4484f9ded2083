// fixture: idioms/alloc-wrapper-array-ok — blocks from an allocator wrapper, stored into an array that is itself stored in a field
#include <stdlib.h>

/*
 * Idiom: a project allocator wrapper returns `void *` (it never returns
 * NULL: it aborts instead). A table is allocated through it and hung on a
 * parameter, then an array of entries, then each entry, stored into the
 * array before anything can fail. Every early return leaves each entry
 * reachable from `h->tab->entries[i]`: nothing leaks.
 *
 * The wrapper is not a generic container: each call returns a block no one
 * else holds, so the three types the callers convert its result to stay
 * apart (field-sensitive), and the store into `tab->entries[i]` cannot be
 * mistaken for a write of `tab->entries` itself.
 * Leaking twin: alloc-wrapper-array-leak.c.
 */

struct entry {
    int start;
    int len;
};

struct table {
    unsigned count;
    struct entry **entries;
};

struct holder {
    int id;
    struct table *tab;
};

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);

    if (p == NULL)
        abort();
    return p;
}

int read_table(struct holder *h, const unsigned char *bin, size_t len)
{
    struct table *tab;
    unsigned i;
    size_t pos = 1;

    if (h->tab)
        return -1;
    h->tab = tab = xcalloc(1, sizeof(*tab));
    tab->count = bin[0];
    tab->entries = xcalloc(tab->count, sizeof(struct entry *));
    for (i = 0; i < tab->count; i++) {
        struct entry *e;

        if (len - pos < 3)
            return -2;
        e = xcalloc(1, sizeof(*e));
        tab->entries[i] = e;
        e->start = bin[pos];
        if (bin[pos + 1] > 100)
            return -3;
        e->len = bin[pos + 1];
        pos += 3;
    }
    return 0;
}

int main(void)
{
    unsigned char data[] = {2, 1, 2, 3, 4, 5, 6, 0, 0};
    struct holder h = {0, NULL};
    unsigned i;

    read_table(&h, data, sizeof data);
    if (h.tab) {
        for (i = 0; i < h.tab->count; i++)
            free(h.tab->entries[i]);
        free(h.tab->entries);
        free(h.tab);
    }
    return 0;
}
