// fixture: idioms/ptr-array-leak — array of strings filled in a loop and never freed
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom gone wrong: a heap array of heap strings is built and measured,
 * then neither the strings nor the array are freed.  `copies` is the last
 * reference to the array when the function returns; the strings are still
 * referenced from the (lost) array, so they are not separate losses.
 * Fixed twin: ptr-array-ok.c.
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
    return total;                               // expect: leak copies
}
