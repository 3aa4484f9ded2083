// fixture: idioms/asprintf-leak — message formatted with asprintf() is never freed
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: asprintf() allocates the formatted string and returns it through
 * its first argument (it returns -1 and allocates nothing on failure).
 * The success path prints the message and forgets to free it.
 * Fixed twin: asprintf-ok.c.
 */

int log_event(int code, const char *what)
{
    char *msg;
    int rc = 0;

    if (asprintf(&msg, "event %d: %s\n", code, what) < 0)
        return -1;
    if (fputs(msg, stderr) == EOF)
        rc = -1;
    return rc;                                  // expect: leak msg
}
