// fixture: idioms/asprintf-count-leak — a formatted name dropped when it is too short
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: as in asprintf-count-ok.c, but a name of fewer than three
 * characters is rejected by returning NULL without freeing it: asprintf()
 * did allocate it (its count is at least one), so it leaks.
 * Fixed twin: asprintf-count-ok.c.
 */

char *part_name(const char *dev, size_t partno)
{
    char *res = NULL;

    if (dev == NULL || *dev == '\0') {
        if (asprintf(&res, "%zu", partno) < 3)
            return NULL;                        // expect: leak res
        return res;
    }
    if (asprintf(&res, "%s%zu", dev, partno) <= 0)
        return NULL;
    return res;
}
