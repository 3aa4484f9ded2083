// fixture: idioms/array-slot-ok — a copy stored in slot n of a NULL-terminated array survives the terminator written at n + 1
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: append a copy of a name to a NULL-terminated array of strings
 * that the caller owns, growing it in chunks. The copy goes into slot
 * `n` and the terminator into slot `n + 1`: two different elements, so
 * writing the terminator does not drop the copy.
 * Leaking twin: array-slot-leak.c.
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
    (*names)[n + 1] = NULL;
    if (!copy)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    char **names = NULL;
    int i;

    for (i = 1; i < argc; i++)
        if (names_add(&names, argv[i]) < 0)
            break;
    if (names) {
        for (i = 0; names[i]; i++)
            free(names[i]);
        free(names);
    }
    return 0;
}
