// fixture: idioms/exit-flag-ok — a free wrapper skips free() once a noreturn exit path has set a flag
#include <stdlib.h>
#include <string.h>

/*
 * Idiom (Vim's vim_free): the project's free() wrapper skips the free while the program is
 * exiting for sure (after a fatal signal, free() itself may be what crashed). The flag is
 * set only by `preserve_exit`, which never returns, so a block the wrapper does not free
 * then is lost only while the process ends. Leaking twin: exit-flag-leak.c.
 */

int really_exiting;

void vim_free(void *x)
{
    if (x != NULL && !really_exiting)
        free(x);
}

void preserve_exit(void)
{
    really_exiting = 1;
    exit(1);
}

char *read_string(const char *src, int len)
{
    char *str = malloc((size_t)len + 1);

    if (str == NULL)
        return NULL;
    if (len > 100) {
        vim_free(str);
        return NULL;                            // expect: unproved imprecise
    }
    memcpy(str, src, (size_t)len);
    str[len] = '\0';
    return str;
}
