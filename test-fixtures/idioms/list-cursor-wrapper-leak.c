// fixture: idioms/list-cursor-wrapper-leak — a cursor through an allocator wrapper that moves to a new node without linking it
#include <stdlib.h>

/*
 * Idiom: as list-cursor-wrapper-ok.c, but the loop forgets the link: the
 * new node goes into a local and the cursor moves to it, so the node it
 * leaves (past the head) is lost at `p = n`, and the last one at the
 * return.
 * Fixed twin: list-cursor-wrapper-ok.c.
 */

struct item {
    struct item *next;
    int key;
};

static void *xcalloc(size_t n, size_t size)
{
    void *ret = calloc(n, size);

    if (!ret && n && size)
        exit(1);
    return ret;
}

int read_items(struct item **items, const int *keys, int count)
{
    struct item *p;
    int i = 0;

    p = *items = xcalloc(1, sizeof(struct item));
    while (i < count) {
        struct item *n = xcalloc(1, sizeof(struct item));

        p->key = keys[i];
        p = n; // expect: leak p
        i++;
    }
    return i; // expect: leak p
}

void free_items(struct item *it)
{
    while (it) {
        struct item *next = it->next;
        free(it);
        it = next;
    }
}

int main(void)
{
    int keys[] = {1, 2, 3};
    struct item *items = NULL;

    read_items(&items, keys, 3);
    free_items(items);
    return 0;
}
