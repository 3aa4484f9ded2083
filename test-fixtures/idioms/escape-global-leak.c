// fixture: idioms/escape-global-leak — storing into a global overwrites the previous heap string
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a module-level global owns a heap string.  set_user() stores a
 * fresh copy in the global but does not free the previous value: on the
 * second call (from main) the assignment loses the first copy.
 * Fixed twin: escape-global-ok.c.
 */

static char *g_user;

static int set_user(const char *name)
{
    char *copy = strdup(name);

    if (copy == NULL)
        return -1;
    g_user = copy;                              // expect: leak g_user
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
