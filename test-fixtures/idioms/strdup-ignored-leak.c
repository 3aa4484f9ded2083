// fixture: idioms/strdup-ignored-leak — the result of strdup() is discarded
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: the author meant to keep a private copy of the label, but the
 * strdup() result is thrown away and the entry stores the caller's
 * (borrowed) pointer instead.  The fresh copy is lost by the call
 * statement itself: an ignored result of an allocator.
 * Fixed twin: strdup-ignored-ok.c.
 */

struct entry {
    const char *label;
    int value;
};

void entry_init(struct entry *e, const char *label, int value)
{
    strdup(label);                              // expect: leak strdup()
    e->label = label;
    e->value = value;
}
