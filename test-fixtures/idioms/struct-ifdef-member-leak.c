// fixture: idioms/struct-ifdef-member-leak — a member declared inside an undecided #if is a member
#include <stdlib.h>

struct connection {
    int fd;
#if (HAVE_TLS || BUILD_COMPAT)
    char *session;
#endif
    int flags;
};

/*
 * Idiom: a struct member declared inside a conditional group the build
 * may take (`#if (NGX_SSL || NGX_COMPAT)` in nginx). The member is a pointer
 * like any other: overwriting the only reference leaks. Fixed twin:
 * struct-ifdef-member-ok.c.
 */
void connection_reset(struct connection *c)
{
    c->session = malloc(32);            // expect: unproved input-dependent
    if (c->session == NULL)
        return;
    c->flags = 0;
    c->session = NULL;                  // expect: leak c->session
}
