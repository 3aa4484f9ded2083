// fixture: idioms/list-prepend-chain-leak — the innermost add drops the old head when it cannot allocate
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a list that grows at its head through a wrapper,
 * `saved = env_add_getenv(saved, …)` → `env_add`, each passing the old head
 * on and returning the new one (`ls = env_add(ls, …)` reassigns the
 * wrapper's parameter after passing it on).
 * `env_add` links the old head into the node it returns, but returns NULL
 * when it cannot allocate: overwriting `saved` with that result loses the
 * list built so far.
 * Fixed twin: list-prepend-chain-ok.c.
 */

struct env {
    struct env *next;
    char *name;
};

struct env *env_add(struct env *ls0, const char *name)
{
    struct env *ls = calloc(1, sizeof(*ls) + strlen(name) + 1);

    if (!ls)
        return NULL;
    ls->name = (char *)(ls + 1);
    strcpy(ls->name, name);
    ls->next = ls0;
    return ls;
}

struct env *env_add_getenv(struct env *ls, const char *name, const char *dflt)
{
    const char *val;

    if (!name)
        return ls;
    val = getenv(name);
    if (!val)
        val = dflt;
    if (val)
        ls = env_add(ls, val);
    return ls;
}

void env_free(struct env *ls)
{
    while (ls) {
        struct env *next = ls->next;
        free(ls);
        ls = next;
    }
}

int save_terminal(struct env **out)
{
    struct env *saved = env_add_getenv(NULL, "TERM", NULL);

    saved = env_add_getenv(saved, "COLORTERM", NULL);  // expect: leak saved
    if (!saved)
        return -1;
    *out = saved;
    return 0;
}
