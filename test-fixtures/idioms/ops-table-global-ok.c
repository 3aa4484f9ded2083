// fixture: idioms/ops-table-global-ok — the callback reached through a static table leaves the flag alone
#include <stdlib.h>

/*
 * Idiom: as in ops-table-global-leak.c, but the release callback only
 * records the code: `keep_buffer` stays set across the call through the
 * table, and `session_run` frees the buffer.
 * Leaking twin: ops-table-global-leak.c.
 */

struct ops {
    void (*release)(int code);
    void (*log)(int code);
};

static int keep_buffer;
static int last_code;

static void release_all(int code)
{
    last_code = code + 1;
}

static void log_only(int code)
{
    last_code = code;
}

static const struct ops default_ops = {
    .release = release_all,
    .log = log_only,
};

static void session_close(const struct ops *ops, int code)
{
    ops->release(code);
}

int session_run(int code)
{
    char *buf = malloc(64);

    if (!buf)
        return -1;
    keep_buffer = 1;
    session_close(&default_ops, code);
    if (keep_buffer)
        free(buf);
    return last_code;
}
