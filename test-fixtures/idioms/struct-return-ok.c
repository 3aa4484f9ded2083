// fixture: idioms/struct-return-ok — a list handle returned by value keeps its nodes
#include <stdlib.h>

/*
 * Idiom: a small struct returned by value (a span, a buffer descriptor, an
 * instruction list {first, last}) carries the pointer out of the function.
 * The node made by item_new lives on in the returned handle; the caller owns
 * it and frees it with span_free.
 * Leaking twin: struct-return-leak.c.
 */

struct item {
    int op;
    struct item *next;
};

struct span {
    struct item *first;
    struct item *last;
};

static struct item *item_new(int op)
{
    struct item *i = malloc(sizeof *i);

    if (i == NULL)
        abort();
    i->op = op;
    i->next = NULL;
    return i;
}

static struct span span_of(struct item *i)
{
    struct span s = {i, i};
    return s;
}

struct span span_single(int op)
{
    return span_of(item_new(op));
}

struct span span_pair(int a, int b)
{
    struct item *x = item_new(a);
    struct item *y = item_new(b);
    struct span s = span_of(x);

    s.last->next = y;
    s.last = y;
    return s;
}

void span_free(struct span s)
{
    struct item *i = s.first;

    while (i != NULL) {
        struct item *n = i->next;
        free(i);
        i = n;
    }
}
