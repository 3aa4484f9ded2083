// fixture: idioms/deep-call-ok — a buffer allocated four calls down, freed by main
#include <stdlib.h>

/*
 * The fixed twin of deep-call-leak.c: main frees the buffer before it drops
 * the pointer, so the overwrite loses nothing.
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
    free(h.buf);
    h.buf = NULL;
    return 0;
}
