// fixture: idioms/asprintf-ok — message formatted with asprintf() is freed after use
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

/*
 * Idiom: asprintf() allocates the formatted string (nothing is allocated
 * when it returns -1, so that early return loses nothing); the message is
 * freed after printing.  Leaking twin: asprintf-leak.c.
 */

int log_event(int code, const char *what)
{
    char *msg;
    int rc = 0;

    if (asprintf(&msg, "event %d: %s\n", code, what) < 0)
        return -1;
    if (fputs(msg, stderr) == EOF)
        rc = -1;
    free(msg);
    return rc;
}
