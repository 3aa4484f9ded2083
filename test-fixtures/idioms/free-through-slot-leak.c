// fixture: idioms/free-through-slot-leak — the pointer to the pointer is cleared first, and the block is lost
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
 * Idiom: as in free-through-slot-ok.c, but the caller's pointer is cleared
 * before the free helper runs, so it frees nothing and the local copy is the
 * last reference when it goes out of scope. Fixed twin: free-through-slot-ok.c.
 */
void notify_free(struct notify **ptr)
{
    if (!ptr || !*ptr)
        return;
    struct notify *notify = *ptr;
    notify->count = 0;
    *ptr = NULL;
    mem_free(ptr);
}                                       // expect: leak notify

void notify_run(void)
{
    struct notify *n = calloc(1, sizeof *n);
    if (n == NULL)
        return;
    n->count = 1;
    notify_free(&n);
}
