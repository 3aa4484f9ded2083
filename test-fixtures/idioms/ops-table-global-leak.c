// fixture: idioms/ops-table-global-leak — a callback reached only through a static table clears the flag
#include <stdlib.h>

/*
 * Idiom: a handler table initialised at file scope (`static const struct
 * ops ... = { .release = ... }`) is the only place that takes the
 * callbacks' addresses. `session_close` calls the release callback through
 * the table, and that callback clears `keep_buffer`; `session_run` then
 * frees the buffer only while the flag is still set, so the buffer leaks.
 * The callback is a possible target of the indirect call: what it writes is
 * what the call may write. Main's build proved this leak-free: functions whose
 * address only a file-scope initializer takes were no targets, so the call
 * kept `keep_buffer` set. The call is summarised, so the leak is found but
 * not confirmed: `unproved (imprecise)`, never `proved`.
 * Fixed twin: ops-table-global-ok.c.
 */

struct ops {
    void (*release)(int code);
    void (*log)(int code);
};

static int keep_buffer;
static int last_code;

static void release_all(int code)
{
    keep_buffer = 0;
    last_code = code;
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
    return last_code;                   // expect: unproved imprecise
}
