// fixture: idioms/callee-guard-leak — a test passes arguments the helpers accept, and drops what they allocate
// mode: strict
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * As callee-guard-ok.c, but the second group of checks passes a format and a
 * size the helpers accept: the string and the buffer are made and never freed.
 *
 * Idiom: `str_printf` refuses a NULL string pointer or format with -1 before
 * it allocates, and `buf_init` keeps a zero-sized buffer empty. The tests call
 * them with exactly the arguments they refuse and only check the refusal:
 * nothing is allocated on those calls, so `out` and `b.data` going out of
 * scope without a `free` lose nothing. The helpers' own conditions above
 * their allocations meet the call's constant arguments (NULL, 0) there.
 * Fixed twin: callee-guard-ok.c.
 */

int str_printf(char **strp, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!strp || !fmt)
        return -1;
    va_start(ap, fmt);
    n = vasprintf(strp, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    return n;
}

struct buf {
    size_t size;
    char *data;
};

int buf_init(struct buf *b, size_t size)
{
    b->size = size;
    b->data = NULL;
    if (size == 0)
        return 0;
    b->data = malloc(size);
    return b->data ? 0 : -1;
}

int test_refusals(void)
{
    int failures = 0;

    {
        char *out = NULL;

        if (str_printf(&out, NULL) != -1)
            failures++;
    }
    {
        struct buf b;

        if (buf_init(&b, 0) != 0 || b.size != 0)
            failures++;
    }
    {
        char *out = NULL;

        if (str_printf(&out, "%d", failures) < 0)
            failures++;
    }                                           // expect: leak out
    {
        struct buf b;

        if (buf_init(&b, 16) != 0)
            failures++;
    }                                           // expect: leak b.data
    return failures;
}

int main(void)
{
    return test_refusals();
}
