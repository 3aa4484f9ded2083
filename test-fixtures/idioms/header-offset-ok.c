// fixture: idioms/header-offset-ok — an allocator returns a pointer past its block's header
#include <stdlib.h>

/*
 * Idiom: a debugging allocator puts a header in front of every block and
 * hands out the address just past it, `(char *) p + RESERVE_SIZE` with a
 * size computed by `sizeof`. That interior pointer keeps the block: the
 * matching free steps back to the header.
 * Leaking twin: header-offset-leak.c.
 */

struct mem_hdr {
    size_t size;
    unsigned tag;
};

#define RESERVE_SIZE (((sizeof(struct mem_hdr) + 15) / 16) * 16)
#define HDR_2_CLIENT(a) ((void *) (((char *) (a)) + RESERVE_SIZE))
#define CLIENT_2_HDR(a) ((struct mem_hdr *) (((char *) (a)) - RESERVE_SIZE))

void *mem_malloc(size_t size, unsigned tag)
{
    struct mem_hdr *p = malloc(RESERVE_SIZE + size);

    if (p == NULL)
        return NULL;
    p->size = size;
    p->tag = tag;
    return HDR_2_CLIENT(p);
}

void mem_free(void *ptr)
{
    if (ptr == NULL)
        return;
    free(CLIENT_2_HDR(ptr));
}

int main(void)
{
    char *s = mem_malloc(16, 7);

    if (s == NULL)
        return 1;
    s[0] = '\0';
    mem_free(s);
    return 0;
}
