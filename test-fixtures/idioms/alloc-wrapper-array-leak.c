// fixture: idioms/alloc-wrapper-array-leak — an entry from an allocator wrapper is dropped before it is stored
#include <stdlib.h>

/*
 * Idiom: as in alloc-wrapper-array-ok.c, but the entry's size check runs
 * after the entry is allocated and before it is stored into the array:
 * on that early return the entry is reachable from nothing and leaks.
 * Fixed twin: alloc-wrapper-array-ok.c.
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
        e->start = bin[pos];
        if (bin[pos + 1] > 100)
            return -3;                  // expect: leak e
        tab->entries[i] = e;
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
