// fixture: idioms/escape-return-leak — returns a second buffer and loses the working copy
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom gone wrong: the function works on a temporary copy, then returns a
 * freshly allocated result built from it, but never frees the temporary:
 * `tmp` is its last reference at the final return.  The early return on
 * the second malloc failing does free it.
 * Fixed twin: escape-return-ok.c (which returns the buffer it works on).
 */

char *dup_upper_trimmed(const char *s)
{
    char *tmp = strdup(s);
    char *res;
    size_t len, i;

    if (tmp == NULL)
        return NULL;
    for (i = 0; tmp[i] != '\0'; i++)
        tmp[i] = (char)toupper((unsigned char)tmp[i]);
    len = i;
    while (len > 0 && tmp[len - 1] == ' ')
        len--;
    res = malloc(len + 1);
    if (res == NULL) {
        free(tmp);
        return NULL;
    }
    for (i = 0; i < len; i++)
        res[i] = tmp[i];
    res[len] = '\0';
    return res;                                 // expect: leak tmp
}
