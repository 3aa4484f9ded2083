// fixture: idioms/malloc-fail-leak — second allocation fails and the first is not freed
#include <stdlib.h>

/*
 * Idiom: two allocations, each checked with `if (!p) return NULL;`.  When
 * the second one fails, the early return drops the first (the paper found
 * this pattern in SPEC out-of-memory handlers).
 * Fixed twin: malloc-fail-ok.c.
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
    if (m->data == NULL)
        return NULL;                            // expect: leak m
    m->rows = rows;
    m->cols = cols;
    return m;
}
