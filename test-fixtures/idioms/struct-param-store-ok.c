// fixture: idioms/struct-param-store-ok — a struct passed by value is stored by the callee, with the string it holds
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: an entry holding a new string is passed by value to a push
 * function, which copies it into the table's array. The callee's copy of
 * the parameter holds the same string as the caller's `e.tag`, so the
 * store keeps the string when the caller's `e` goes out of scope.
 * Leaking twin: struct-param-store-leak.c.
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
    return 1;
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
