// fixture: idioms/container-push-ok — a string that could not be added to the vector is freed
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: add an owned copy to a growable container whose push can fail.
 * On failure the container did not take ownership, so the caller frees
 * the copy; on success the vector slot references it.
 * Leaking twin: container-push-leak.c.
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
    if (strvec_push(v, copy) < 0) {
        free(copy);
        return -1;
    }
    return 0;
}
