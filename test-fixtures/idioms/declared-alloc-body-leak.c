// fixture: idioms/declared-alloc-body-leak — the constructor leaves the flag clear, so the release keeps the struct
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in declared-alloc-body-ok.c, but this constructor copies a
 * template whose `allocated` flag is clear (a bug: the template describes a
 * stream embedded in another object). `stream_free` then frees the buffer and
 * keeps the struct, which nothing references any more.
 * Fixed twin: declared-alloc-body-ok.c.
 */

struct stream {
    unsigned char *buffer;
    size_t length;
    int allocated;
    int owner;
};

void stream_free(struct stream *s, int free_buffer);

struct stream *stream_new(size_t size) __attribute__((malloc));

struct stream *stream_new(size_t size)
{
    struct stream *s = malloc(sizeof(*s));

    if (!s)
        return NULL;
    s->buffer = malloc(size);
    if (!s->buffer) {
        free(s);
        return NULL;
    }
    s->length = size;
    s->allocated = 0;
    s->owner = 1;
    return s;
}

void stream_free(struct stream *s, int free_buffer)
{
    if (!s)
        return;
    if (free_buffer && s->owner)
        free(s->buffer);
    if (s->allocated)
        free(s);
}

static int send_packet(struct stream *s, int fd)
{
    int rc = fd < 0 ? -1 : 0;

    stream_free(s, 1);
    return rc;
}

int send_hello(int fd)
{
    struct stream *s = stream_new(64);

    if (!s)
        return -1;
    memset(s->buffer, 0, s->length);
    return send_packet(s, fd);          // expect: leak s
}
