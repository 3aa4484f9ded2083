// fixture: idioms/declared-alloc-body-ok — a constructor declared `malloc` sets the flag its release tests
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a stream constructor declared `__attribute__((malloc))` (freerdp's
 * `WINPR_ATTR_MALLOC(Stream_Free, 1)`) marks the stream it allocates as
 * owned; `stream_free` frees the struct only when that flag is set (a stream
 * may also live inside another object). The attribute says only "fresh
 * memory"; the body also says the flag is set, so the path on which
 * `stream_free` skips the free cannot follow `stream_new`.
 * Leaking twin: declared-alloc-body-leak.c.
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
    s->allocated = 1;
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
    return send_packet(s, fd);
}
