// fixture: idioms/struct-param-store-leak — the callee reports an entry of a kind already there as stored without storing it
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: an entry holding a new string is passed by value to a push
 * function, which copies it into the table's array. The callee's copy of
 * the parameter holds the same string as the caller's `e.tag`. But an
 * entry whose kind is already the last one is reported as stored without
 * being stored, and the caller's string is lost.
 * Fixed twin: struct-param-store-ok.c.
 */

struct entry {
    char *tag;
    int kind;
};

struct table {
    struct entry *items;
    int len;
    int cap;
};

static int table_push(struct table *t, struct entry e)
{
    if (t->len == t->cap)
        return 0;
    if (t->len > 0 && t->items[t->len - 1].kind == e.kind)
        return 1;
    t->items[t->len] = e;
    t->len++;
    return 1;
}

int table_add(struct table *t, const char *name, int kind)
{
    struct entry e;
    char *tag = strdup(name);

    if (!tag)
        return 0;
    e.tag = tag;
    e.kind = kind;
    if (!table_push(t, e)) {
        free(tag);
        return 0;
    }
    return 1;                           // expect: leak e.tag
}

int main(int argc, char **argv)
{
    struct entry items[2];
    struct table t = { items, 0, 2 };
    int i;

    if (argc > 1)
        table_add(&t, argv[1], 1);
    if (argc > 2)
        table_add(&t, argv[2], 1);
    for (i = 0; i < t.len; i++)
        free(items[i].tag);
    return 0;
}
