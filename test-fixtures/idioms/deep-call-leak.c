// fixture: idioms/deep-call-leak — a buffer allocated four calls down, then dropped by main
#include <stdlib.h>

/*
 * init() reaches the allocation through a chain of helpers deeper than the
 * analysis follows (two calls), so it cannot track the block back to its
 * malloc. It must not call the overwrite in main leak-free: the block may
 * have been made inside the chain. The verdict is unproved, not leak,
 * because the path from the allocation was not followed.
 */

struct holder {
    char *buf;
};

static void alloc_buf(struct holder *h)
{
    h->buf = malloc(16);
}

static void init3(struct holder *h)
{
    alloc_buf(h);
}

static void init2(struct holder *h)
{
    init3(h);
}

static void init(struct holder *h)
{
    init2(h);
}

int main(void)
{
    struct holder h;

    h.buf = NULL;
    init(&h);
    h.buf = NULL;              // expect: unproved unsupported
    return 0;
}
