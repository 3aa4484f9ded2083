// fixture: idioms/strdup-ignored-ok — the strdup() copy is stored in the entry
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: keep a private copy of a caller's string.  The result of strdup()
 * is checked and stored in the entry, which owns it from then on (the
 * entry has a destroy function).  Leaking twin: strdup-ignored-leak.c.
 */

struct entry {
    char *label;
    int value;
};

int entry_init(struct entry *e, const char *label, int value)
{
    char *copy = strdup(label);

    if (copy == NULL)
        return -1;
    e->label = copy;
    e->value = value;
    return 0;
}

void entry_destroy(struct entry *e)
{
    free(e->label);
    e->label = NULL;
}
