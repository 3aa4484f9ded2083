// fixture: idioms/errno-return-ok — `return -EINVAL;` is a nonzero error code, not an unknown value
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a table cell takes over the string it is given and returns 0, or
 * returns -EINVAL without taking it when there is no cell; the caller dies
 * on any nonzero result. `<errno.h>` is a system header the analysis does
 * not read: its codes are known constants, so the refusal is not taken for
 * a 0 after which the caller would go on and drop the string.
 * Leaking twin: errno-return-leak.c.
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
    if (cell_refer_data(ce, str)) {
        fprintf(stderr, "failed to add output data\n");
        exit(EXIT_FAILURE);
    }
    return 0;
}
