// fixture: idioms/intrusive-list-ok — a block linked by its embedded list node is kept by the list
#include <stdlib.h>

/*
 * Idiom: kernel-style intrusive lists. A hook embeds a `struct list_head`;
 * `list_add_tail(&hook->hooks, &cxt->hooks)` links that member into the
 * context's list through two small inline helpers. The list then holds a
 * pointer into the hook's block (its member's address), which keeps the
 * block: losing the local `hook` afterwards loses nothing.
 * Leaking twin: intrusive-list-leak.c.
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
    list_add_tail(&hook->hooks, &cxt->hooks);
    cxt->nhooks++;
    return 0;
}
