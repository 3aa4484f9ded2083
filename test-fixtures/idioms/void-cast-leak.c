// fixture: idioms/void-cast-leak — state allocated as void*, used through struct pointers, never freed
#include <stdlib.h>

/*
 * Idiom: opaque state.  The caller allocates untyped memory (`void *`);
 * helper functions take `void *` and convert it to `struct stats *`, both
 * implicitly and with an explicit cast.  The caller forgets to free the
 * state: `state` is its last reference at the return (the helpers only
 * borrow it).  Fixed twin: void-cast-ok.c.
 */

struct stats {
    int count;
    double sum;
};

static void stats_init(void *p)
{
    struct stats *s = p;

    s->count = 0;
    s->sum = 0.0;
}

static void stats_add(void *p, double x)
{
    struct stats *s = (struct stats *)p;

    s->count++;
    s->sum += x;
}

static double stats_mean(const void *p)
{
    const struct stats *s = p;

    return s->count ? s->sum / s->count : 0.0;
}

double mean(const double *xs, int n)
{
    void *state = malloc(sizeof(struct stats));
    double m;
    int i;

    if (state == NULL)
        return 0.0;
    stats_init(state);
    for (i = 0; i < n; i++)
        stats_add(state, xs[i]);
    m = stats_mean(state);
    return m;                                   // expect: leak state
}
