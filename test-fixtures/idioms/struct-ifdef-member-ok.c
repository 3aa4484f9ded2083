// fixture: idioms/struct-ifdef-member-ok — a member declared inside an undecided #if is a member
// mode: strict
// analyze: connection_reset
#include <stdlib.h>

struct connection {
    int fd;
#if (HAVE_TLS || BUILD_COMPAT)
    char *session;
#endif
    int flags;
};

/*
 * Idiom: a struct member declared inside a conditional group the build may
 * take, freed before it is cleared. Leaking twin: struct-ifdef-member-leak.c.
 */
void connection_reset(struct connection *c)
{
    c->session = malloc(32);            // expect: unproved input-dependent
    if (c->session == NULL)
        return;                         // expect: unproved input-dependent
    c->flags = 0;
    free(c->session);
    c->session = NULL;
}                                       // expect: unproved input-dependent
