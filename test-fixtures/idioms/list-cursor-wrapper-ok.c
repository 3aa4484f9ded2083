// fixture: idioms/list-cursor-wrapper-ok — a list built with a cursor through an allocator wrapper: `p->next = xcalloc(…); p = p->next;`
#include <stdlib.h>

/*
 * Idiom: as list-cursor-ok.c, but each node comes from the project's
 * allocator wrapper (util-linux's `xcalloc`, which exits instead of
 * returning NULL). The node the cursor leaves is still its predecessor's
 * `next` (or `*head`): nothing leaks at `p = p->next` or at the returns.
 *
 * Backwards over `p->next = xcalloc(…)`, the hit `p->next->next` (the node
 * left behind was the new node's `next`) reads the written field through
 * the value written: it is `ret->next` of the wrapper's result unless that
 * result is `p` itself, a block that is its own successor. The first case
 * reaches the wrapper's `calloc` as a read of the new block, the second
 * needs a fresh block equal to a pointer computed before it existed; both
 * are refuted.
 * Leaking twin: list-cursor-wrapper-leak.c.
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
        p->key = keys[i];
        p->next = xcalloc(1, sizeof(struct item));
        p = p->next;
        p->next = NULL;
        i++;
    }
    return i;
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
