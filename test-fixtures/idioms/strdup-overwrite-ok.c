// fixture: idioms/strdup-overwrite-ok — the default string is freed before it is replaced
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: start from a heap-allocated default and override it from the
 * environment; the default is freed before `name` is reassigned, and the
 * result is returned to the caller.  Leaking twin: strdup-overwrite-leak.c.
 */

char *resolve_user(const char *env_user)
{
    char *name = strdup("nobody");

    if (name == NULL)
        return NULL;
    if (env_user != NULL && env_user[0] != '\0') {
        free(name);
        name = strdup(env_user);
        if (name == NULL)
            return NULL;
    }
    return name;
}
