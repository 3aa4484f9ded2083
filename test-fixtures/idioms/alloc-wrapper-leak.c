// fixture: idioms/alloc-wrapper-leak — results of an allocating constructor (via xmalloc) are lost
#include <stdlib.h>

/*
 * Idiom: allocator wrappers.  xmalloc() aborts instead of returning NULL,
 * point_new() builds on it; both return fresh memory, so the analysis must
 * infer them as allocators.  norm2() drops its point when it returns, and
 * warm_up() ignores the result of point_new() altogether.
 * Fixed twin: alloc-wrapper-ok.c.
 */

struct point {
    double x, y;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (p == NULL)
        abort();
    return p;
}

static struct point *point_new(double x, double y)
{
    struct point *p = xmalloc(sizeof *p);

    p->x = x;
    p->y = y;
    return p;
}

double norm2(double x, double y)
{
    struct point *p = point_new(x, y);
    double d = p->x * p->x + p->y * p->y;

    return d;                                   // expect: leak p
}

void warm_up(void)
{
    point_new(0.0, 0.0);                        // expect: leak point_new()
}
