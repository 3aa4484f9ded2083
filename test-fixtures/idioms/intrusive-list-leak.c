// fixture: idioms/intrusive-list-leak — a hook refused before it is linked is not freed
#include <stdlib.h>

/*
 * Idiom: as in intrusive-list-ok.c, but a context that already holds too
 * many hooks refuses the new one after it was allocated, without freeing it.
 * Fixed twin: intrusive-list-ok.c.
 */

struct list_head {
    struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *list)
{
    list->next = list;
    list->prev = list;
}

static inline void list_insert(struct list_head *add, struct list_head *prev,
                               struct list_head *next)
{
    next->prev = add;
    add->next = next;
    add->prev = prev;
    prev->next = add;
}

static inline void list_add_tail(struct list_head *add, struct list_head *head)
{
    list_insert(add, head->prev, head);
}

struct hook {
    struct list_head hooks;
    int stage;
    void *data;
};

struct context {
    struct list_head hooks;
    int nhooks;
};

int append_hook(struct context *cxt, int stage, void *data)
{
    struct hook *hook = calloc(1, sizeof(*hook));

    if (!hook)
        return -1;
    INIT_LIST_HEAD(&hook->hooks);
    hook->stage = stage;
    hook->data = data;
    if (cxt->nhooks >= 64)
        return -1;                      // expect: leak hook
    list_add_tail(&hook->hooks, &cxt->hooks);
    cxt->nhooks++;
    return 0;
}
