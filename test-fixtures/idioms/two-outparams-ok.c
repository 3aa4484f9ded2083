// fixture: idioms/two-outparams-ok — a parser hands two strings out through two out-parameters
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: `NAME=value` is split into two fresh strings, stored through two
 * out-parameters in turn (`*ret_val = value; ... *ret_type = name;`).  The
 * second store could overwrite the first only if the caller passed the same
 * pointer for both, which no caller does: nothing is lost.
 * Leaking twin: two-outparams-leak.c.
 */

int parse_tag(const char *token, char **ret_type, char **ret_val)
{
    char *name, *value, *eq;

    if (token == NULL)
        return -1;
    name = strdup(token);
    if (name == NULL)
        return -1;
    eq = strchr(name, '=');
    if (eq == NULL) {
        free(name);
        return -1;
    }
    *eq = '\0';
    if (ret_val != NULL) {
        value = strdup(eq + 1);
        if (value == NULL) {
            free(name);
            return -1;
        }
        *ret_val = value;
    }
    if (ret_type != NULL)
        *ret_type = name;
    else
        free(name);
    return 0;                                   // expect: unproved imprecise
}
