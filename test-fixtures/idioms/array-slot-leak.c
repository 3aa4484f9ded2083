// fixture: idioms/array-slot-leak — the terminator is written over the slot that holds the copy
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: append a copy of a name to a NULL-terminated array of strings
 * that the caller owns, growing it in chunks. The copy goes into slot
 * `n`, and then the terminator is written into the same slot `n`: the
 * copy is dropped.
 * Fixed twin: array-slot-ok.c.
 */

int names_add(char ***names, const char *s)
{
    int n = 0;

    if (*names) {
        char **p;
        for (n = 0, p = *names; *p; p++, n++)
            if (strcmp(*p, s) == 0)
                return 0;
    }
    if (n == 0 || (n + 1) % 16 == 0) {
        char **grown = realloc(*names, (size_t)(n + 17) * sizeof(char *));
        if (!grown)
            return -1;
        *names = grown;
    }
    char *copy = strdup(s);
    (*names)[n] = copy;
    (*names)[n] = NULL;
    if (!copy)
        return -1;
    return 0;                           // expect: leak copy
}

/* The same slot written through a byte offset: slot 1 is 1 * sizeof(char *) bytes in. */
char **pair_new(const char *a)
{
    char **pair = calloc(2, sizeof(char *));
    char *copy = strdup(a);

    if (!pair) {
        free(copy);
        return NULL;
    }
    pair[1] = copy;
    *(char **)((char *)pair + sizeof(char *)) = NULL;
    return pair;                        // expect: leak copy
}

int main(int argc, char **argv)
{
    char **names = NULL;
    int i;

    for (i = 1; i < argc; i++)
        if (names_add(&names, argv[i]) < 0)
            break;
    if (argc > 1) {
        char **pair = pair_new(argv[1]);
        if (pair) {
            free(pair[0]);
            free(pair[1]);
            free(pair);
        }
    }
    if (names) {
        for (i = 0; names[i]; i++)
            free(names[i]);
        free(names);
    }
    return 0;
}
