// fixture: idioms/container-push-leak — a string that could not be added to the vector is leaked
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: add an owned copy to a growable container whose push can fail:
 * `if (push(v, item) < 0) return -1;`.  When strvec_push() fails (realloc
 * failure) it does not store the item, and the early return drops the
 * only reference to the copy.  Fixed twin: container-push-ok.c.
 */

struct strvec {
    char **items;
    size_t len, cap;
};

static int strvec_push(struct strvec *v, char *s)
{
    if (v->len == v->cap) {
        size_t ncap = v->cap ? 2 * v->cap : 4;
        char **tmp = realloc(v->items, ncap * sizeof *tmp);
        if (tmp == NULL)
            return -1;
        v->items = tmp;
        v->cap = ncap;
    }
    v->items[v->len++] = s;
    return 0;
}

int strvec_add_copy(struct strvec *v, const char *s)
{
    char *copy = strdup(s);

    if (copy == NULL)
        return -1;
    if (strvec_push(v, copy) < 0)
        return -1;                              // expect: leak copy
    return 0;
}
