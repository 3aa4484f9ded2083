// fixture: idioms/free-through-slot-ok — a block freed through a pointer to the pointer that holds it
// mode: strict
#include <stdlib.h>

struct notify {
    int count;
};

/* neomutt's FREE(&p): frees *p through a void ** and clears it. */
void mem_free(void *ptr)
{
    if (!ptr)
        return;
    void **p = (void **)ptr;
    free(*p);
    *p = NULL;
}

/*
 * Idiom: the destructor copies the block out of the caller's pointer, uses
 * it, and frees it through the caller's pointer with a free helper that takes
 * a pointer to the pointer (`void *`, so the block's type is not known there).
 * The local copy is the same block: nothing leaks. Leaking twin:
 * free-through-slot-leak.c.
 */
void notify_free(struct notify **ptr)
{
    if (!ptr || !*ptr)
        return;
    struct notify *notify = *ptr;
    notify->count = 0;
    mem_free(ptr);
}

void notify_run(void)
{
    struct notify *n = calloc(1, sizeof *n);
    if (n == NULL)
        return;
    n->count = 1;
    notify_free(&n);
}
