// fixture: idioms/asprintf-count-ok — a name formatted with asprintf() is handed out when the count is positive
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: `if (asprintf(&s, "%zu", n) > 0) return s;` — the test is "> 0",
 * not ">= 0".  When asprintf() allocates, it prints at least what the format
 * always prints (here one digit), so the count is positive and the string is
 * returned; the other branch is taken only when nothing was allocated.
 * Leaking twin: asprintf-count-leak.c.
 */

char *part_name(const char *dev, size_t partno)
{
    char *res = NULL;

    if (dev == NULL || *dev == '\0') {
        if (asprintf(&res, "%zu", partno) > 0)
            return res;
        return NULL;
    }
    if (asprintf(&res, "%s%zu", dev, partno) <= 0)
        return NULL;
    return res;
}
