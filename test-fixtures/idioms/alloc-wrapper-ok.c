// fixture: idioms/alloc-wrapper-ok — results of an allocating constructor (via xmalloc) are freed
#include <stdlib.h>

/*
 * Idiom: allocator wrappers.  xmalloc() aborts instead of returning NULL,
 * point_new() builds on it; every point obtained from point_new() is freed
 * by its user.  Leaking twin: alloc-wrapper-leak.c.
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

    free(p);
    return d;
}

double dist2(double x0, double y0, double x1, double y1)
{
    struct point *a = point_new(x0, y0);
    struct point *b = point_new(x1, y1);
    double dx = a->x - b->x, dy = a->y - b->y;

    free(a);
    free(b);
    return dx * dx + dy * dy;
}
