// fixture: idioms/exit-flag-leak — a free wrapper skips free() while a flag that an ordinary function sets is set
#include <stdlib.h>
#include <string.h>

/*
 * The free() wrapper of exit-flag-ok.c, but the flag is set by `pause_frees`, which returns:
 * the program goes on running with frees skipped, and the block is lost during the run.
 * Fixed twin: exit-flag-ok.c.
 */

int really_exiting;

void vim_free(void *x)
{
    if (x != NULL && !really_exiting)
        free(x);
}

void pause_frees(void)
{
    really_exiting = 1;
}

char *read_string(const char *src, int len)
{
    char *str = malloc((size_t)len + 1);

    if (str == NULL)
        return NULL;
    if (len > 100) {
        vim_free(str);
        return NULL;                            // expect: leak str
    }
    memcpy(str, src, (size_t)len);
    str[len] = '\0';
    return str;
}
