// fixture: idioms/ptr-array-ok — array of strings filled in a loop and freed in a loop
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a heap array of heap strings.  The array is zero-filled by
 * calloc, so each slot assignment overwrites NULL; if a strdup() fails the
 * remaining slots stay NULL.  Every slot is freed (free(NULL) is a no-op),
 * then the array.  Leaking twin: ptr-array-leak.c.
 */

int total_length(const char *const *words, int n)
{
    char **copies;
    int i, total = 0;

    copies = calloc((size_t)n, sizeof *copies);
    if (copies == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        copies[i] = strdup(words[i]);
        if (copies[i] == NULL)
            break;
        total += (int)strlen(copies[i]);
    }
    for (i = 0; i < n; i++)
        free(copies[i]);
    free(copies);
    return total;
}
