// fixture: idioms/escape-global-ok — a heap string escapes into a global that frees its previous value
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a module-level global owns a heap string.  set_user() stores a
 * fresh copy in the global after freeing the previous one; the local
 * `copy` going out of scope is not a leak because the global references
 * the string.  main() calls it twice and releases the global at the end.
 * Leaking twin: escape-global-leak.c.
 */

static char *g_user;

static int set_user(const char *name)
{
    char *copy = strdup(name);

    if (copy == NULL)
        return -1;
    free(g_user);
    g_user = copy;
    return 0;
}

int main(void)
{
    if (set_user("alice") < 0 || set_user("bob") < 0)
        return 1;
    free(g_user);
    g_user = NULL;
    return 0;
}
