// fixture: idioms/errno-return-leak — a refused string is dropped by a caller that reports and goes on
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in errno-return-ok.c, but the caller only reports the refusal
 * and returns the error code: the string nobody took is lost.
 * Fixed twin: errno-return-ok.c.
 */

struct cell {
    char *data;
};

int cell_refer_data(struct cell *ce, char *data)
{
    if (!ce)
        return -EINVAL;
    free(ce->data);
    ce->data = data;
    return 0;
}

int fill_name(struct cell *ce, const char *name)
{
    char *str = strdup(name);

    if (!str)
        return -ENOMEM;
    int rc = cell_refer_data(ce, str);

    if (rc) {
        fprintf(stderr, "failed to add output data\n");
        return rc;                      // expect: leak str
    }
    return 0;
}
