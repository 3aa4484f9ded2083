// fixture: idioms/private-area-leak — a handle whose private area points back into its own block is lost on an error path
#include <stdlib.h>
#include <string.h>

struct handle {
    int fd;
    void *priv;                         /* points into this same block */
};

struct remote {
    int sock;
};

/*
 * Idiom: one allocation holds a public struct followed by a private one, and
 * the public part points at the private part (libpcap's `pcap_alloc_pcap_t`:
 * `p->priv = (void *)(chunk + private_offset)`). That pointer lives inside the
 * block itself: once the caller drops the handle, nothing outside the block
 * refers to it, and it is leaked (LeakSanitizer reports it). Fixed twin:
 * private-area-ok.c.
 */
static struct handle *handle_alloc(size_t total, size_t offset)
{
    char *chunk = calloc(total, 1);
    struct handle *h;
    if (chunk == NULL)
        return NULL;
    h = (struct handle *)chunk;
    h->fd = -1;
    h->priv = (void *)(chunk + offset);
    return h;
}

struct handle *remote_open(const char *name)
{
    struct handle *h = handle_alloc(sizeof(struct handle) + sizeof(struct remote), sizeof(struct handle));
    char *copy;
    if (h == NULL)
        return NULL;
    copy = strdup(name);
    if (copy == NULL)
        return NULL;                    // expect: leak h
    free(copy);
    return h;
}
