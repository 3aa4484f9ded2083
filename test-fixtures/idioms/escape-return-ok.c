// fixture: idioms/escape-return-ok — the function returns the buffer it allocated
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a function that returns newly allocated memory; ownership passes
 * to the caller, so the local going out of scope at `return copy` is not
 * a leak.  Leaking twin: escape-return-leak.c.
 */

char *dup_trimmed(const char *s)
{
    size_t len = strlen(s), i;
    char *copy;

    while (len > 0 && s[len - 1] == ' ')
        len--;
    copy = malloc(len + 1);
    if (copy == NULL)
        return NULL;
    for (i = 0; i < len; i++)
        copy[i] = s[i];
    copy[len] = '\0';
    return copy;
}
