// fixture: idioms/loop-counter-exit-ok — a slot search whose exit test matches the loop bound
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a name is stored in the first free slot of a fixed table; the loop
 * counts from 0 and leaves early only after storing it, so `i == MAX` after
 * the loop means "no slot" and everything else means "stored". Backwards,
 * `i != MAX` after the exit test `i >= MAX` needs `i > MAX`, which the step
 * `i++` from `i < MAX` cannot give: the constraints on `i + 1` are
 * constraints on `i`. With a variable bound (`dev_define_in`), the same holds
 * of `i + 1 - count` and `i - count`.
 * Leaking twin: loop-counter-exit-leak.c.
 */

#define MAX 128

struct dev {
    char *name;
};

struct dev *devs[MAX];

int dev_define(const char *name)
{
    char *stored = strdup(name);
    int i = 0;

    if (!stored)
        return 0;
    for (; i < MAX; i++) {
        if (devs[i] == NULL) {
            devs[i] = calloc(1, sizeof(struct dev));
            if (devs[i] == NULL)
                goto fail;
            devs[i]->name = stored;
            break;
        }
    }
    if (i == MAX)
        goto fail;
    return 1;
fail:
    free(stored);
    return 0;
}

/* The same search over the caller's table of `count` slots: the bound is a variable, and
 * past `i++` the exit test is on `i + 1 - count`. */
int dev_define_in(struct dev **table, int count, const char *name)
{
    char *stored = strdup(name);
    int i = 0;

    if (!stored)
        return 0;
    if (count <= 0)
        goto fail;
    for (; i < count; i++) {
        if (table[i] == NULL) {
            table[i] = calloc(1, sizeof(struct dev));
            if (table[i] == NULL)
                goto fail;
            table[i]->name = stored;
            break;
        }
    }
    if (i == count)
        goto fail;
    return 1;
fail:
    free(stored);
    return 0;
}
