// fixture: idioms/borrowed-argument-leak — the caller returns early without freeing the string it handed down
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: an option string owned by the caller (`*optstr`, a slot the caller
 * passes by address) is handed down by value to a parser that records where
 * an option begins and ends in a location struct, and returns early when
 * the name is empty. The parser hands its formal's address to a helper, so
 * the formal lives in memory of the same type as the caller's slot. The
 * parser's formal goes out of scope at its returns, but the
 * caller's slot still points to the string, so nothing is lost there; the
 * caller itself returns on an error without freeing it.
 * Fixed twin: borrowed-argument-ok.c.
 */

struct optloc {
    char *begin;
    char *end;
    size_t namesz;
};

/* The length of the option the cursor points at (reads through the cursor only). */
static size_t option_len(char *const *cursor)
{
    const char *p = *cursor;
    size_t n = 0;

    while (p[n] && p[n] != ',')
        n++;
    return n;
}

static int locate_option(char *optstr, const char *name, struct optloc *ol)
{
    size_t namesz;

    if (!optstr)
        return 1;
    namesz = strlen(name);
    if (!namesz)
        return 1;
    if (option_len(&optstr) == namesz && strncmp(optstr, name, namesz) == 0) {
        ol->begin = optstr;
        ol->end = optstr + namesz;
        ol->namesz = namesz;
        return 0;
    }
    return 1;
}

int has_option(char **optstr, const char *name)
{
    struct optloc ol = { NULL, NULL, 0 };

    if (!optstr || !name)
        return -1;
    return locate_option(*optstr, name, &ol) == 0;
}

int check_options(const char *text, const char *name)
{
    char *copy = strdup(text);
    int rc;

    if (!copy)
        return -1;
    rc = has_option(&copy, name);
    if (rc < 0)
        return rc;                      // expect: leak copy
    free(copy);
    return rc;
}
