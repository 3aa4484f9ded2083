// fixture: idioms/strdup-overwrite-leak — a default string is replaced by a second strdup() without free
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: start from a heap-allocated default and override it from the
 * environment.  `name = strdup(env_user)` overwrites the only pointer to
 * the default copy.  Fixed twin: strdup-overwrite-ok.c.
 */

char *resolve_user(const char *env_user)
{
    char *name = strdup("nobody");

    if (name == NULL)
        return NULL;
    if (env_user != NULL && env_user[0] != '\0') {
        name = strdup(env_user);                // expect: leak name
        if (name == NULL)
            return NULL;
    }
    return name;
}
