// fixture: idioms/malloc-fail-ok — second allocation fails and the first is freed
#include <stdlib.h>

/*
 * Idiom: two allocations, each checked.  When the second fails the first
 * is freed before returning NULL (its data field is NULL at that point,
 * so freeing the struct drops nothing live).
 * Leaking twin: malloc-fail-leak.c.
 */

struct matrix {
    int rows, cols;
    double *data;
};

struct matrix *matrix_new(int rows, int cols)
{
    struct matrix *m = malloc(sizeof *m);

    if (m == NULL)
        return NULL;
    m->data = calloc((size_t)rows * (size_t)cols, sizeof *m->data);
    if (m->data == NULL) {
        free(m);
        return NULL;
    }
    m->rows = rows;
    m->cols = cols;
    return m;
}
