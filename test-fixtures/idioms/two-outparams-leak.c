// fixture: idioms/two-outparams-leak — a parser drops the value when the caller does not want the name
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in two-outparams-ok.c, but a caller that asks for the value and
 * not the name gets an error after the value was copied, and the copy is
 * not freed.
 * Fixed twin: two-outparams-ok.c.
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
        if (ret_type == NULL) {
            free(name);
            return -1;                          // expect: leak value
        }
        *ret_val = value;
    }
    if (ret_type != NULL)
        *ret_type = name;
    else
        free(name);
    return 0;                                   // expect: unproved imprecise
}
