// fixture: idioms/header-offset-leak — a tag check after the allocation returns without freeing the block
#include <stdlib.h>

/*
 * Idiom: a debugging allocator puts a header in front of every block and
 * hands out the address just past it, `(char *) p + RESERVE_SIZE` with a
 * size computed by `sizeof`. A tag check added after the allocation
 * returns NULL and drops the block.
 * Fixed twin: header-offset-ok.c.
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
    if (tag == 0)
        return NULL;                    // expect: leak p
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
    char *s = mem_malloc(16, 0);

    if (s == NULL)
        return 1;
    s[0] = '\0';
    mem_free(s);
    return 0;
}
