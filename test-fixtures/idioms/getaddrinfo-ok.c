// fixture: idioms/getaddrinfo-ok — the address list of getaddrinfo is released on every path
#define _POSIX_C_SOURCE 200112L
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Idiom: `getaddrinfo` builds a list of addresses for its caller, stored
 * through its last argument when it returns 0 (an `EAI_*` code otherwise,
 * and nothing stored); `freeaddrinfo` releases the list. The host check
 * releases it before each return, and the failure branch has nothing to
 * release: `rc` is nonzero there, whatever code it is.
 * Leaking twin: getaddrinfo-leak.c.
 */

static int same_family(const struct sockaddr *a, const struct sockaddr *b)
{
    return a->sa_family == b->sa_family;
}

int host_allowed(const char *host, const struct sockaddr *from)
{
    struct addrinfo hints;
    struct addrinfo *list = NULL;
    struct addrinfo *ai;
    int rc;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, "0", &hints, &list);
    if (rc == EAI_AGAIN || rc == EAI_NONAME)
        return -2;
    if (rc != 0)
        return -1;
    for (ai = list; ai != NULL; ai = ai->ai_next) {
        if (same_family(from, ai->ai_addr)) {
            freeaddrinfo(list);
            return 1;
        }
    }
    freeaddrinfo(list);
    return 0;
}

int main(void)
{
    struct sockaddr from;

    memset(&from, 0, sizeof from);
    from.sa_family = AF_INET;
    return host_allowed("localhost", &from) < 0;
}
