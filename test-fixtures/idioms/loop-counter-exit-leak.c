// fixture: idioms/loop-counter-exit-leak — a slot search whose exit test misses the bound by one
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in loop-counter-exit-ok.c, but the exit test is `i > MAX`: when
 * every slot is taken the loop ends with `i == MAX`, the test fails, and the
 * function returns success with the name stored nowhere.
 * Fixed twin: loop-counter-exit-ok.c.
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
    if (i > MAX)
        goto fail;
    return 1;                           // expect: leak stored
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
    if (i > count)
        goto fail;
    return 1;                           // expect: leak stored
fail:
    free(stored);
    return 0;
}
