// fixture: idioms/struct-return-leak — a handle returned by value that drops a node
#include <stdlib.h>

/*
 * Idiom: a struct returned by value carries a pointer out, as in
 * struct-return-ok.c, but here the second node is made and then the handle
 * built from the first alone is returned: the second node is lost.  And a
 * caller that takes the handle and drops it leaks the node inside it.
 * Fixed twin: struct-return-ok.c.
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

struct span span_pair(int a, int b)
{
    struct item *x = item_new(a);
    struct item *y = item_new(b);
    struct span s = span_of(x);

    return s;                                   // expect: leak y
}

int span_count(int op)
{
    struct span s = span_of(item_new(op));
    int n = s.first->op;

    return n;                                   // expect: leak s.last
}
