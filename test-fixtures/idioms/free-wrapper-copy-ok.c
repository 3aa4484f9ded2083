// fixture: idioms/free-wrapper-copy-ok — a copy of the pointer is dropped after a wrapper that frees unless NULL freed the block
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a string is copied into a struct by value (`e.tag = tag`) and
 * the struct stored into a table. When the table refuses it, the error path
 * frees the string through a wrapper that frees its argument unless it
 * is NULL (`str_free`). The copy in `e` then refers to freed memory and
 * losing it loses nothing.
 * Leaking twin: free-wrapper-copy-leak.c.
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

void str_free(char *s)
{
    if (s)
        free(s);
}

static int table_accepts(const struct table *t, struct entry e)
{
    return t->len < t->cap && e.kind >= 0;
}

int table_add(struct table *t, const char *name, int kind)
{
    struct entry e;
    char *tag = strdup(name);

    if (!tag)
        return 0;
    e.tag = tag;
    e.kind = kind;
    if (!table_accepts(t, e))
        goto error;
    t->items[t->len++] = e;
    return 1;

error:
    str_free(tag);
    return 0;
}

int main(int argc, char **argv)
{
    struct entry items[1];
    struct table full = { items, 0, 0 };

    /* A table without room refuses every name. */
    if (argc > 1)
        table_add(&full, argv[1], 0);
    return 0;
}
