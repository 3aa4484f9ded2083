// fixture: idioms/getaddrinfo-leak — the address list of getaddrinfo is not released on the early return
#define _POSIX_C_SOURCE 200112L
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Idiom: `getaddrinfo` builds a list of addresses for its caller, stored
 * through its last argument when it returns 0 (an `EAI_*` code otherwise,
 * and nothing stored); `freeaddrinfo` releases the list. The host check
 * returns as soon as an address matches, without releasing the list: the
 * leak libpcap fixed in `sock_check_hostlist`.
 * Fixed twin: getaddrinfo-ok.c.
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
    if (rc != 0)
        return -1;
    for (ai = list; ai != NULL; ai = ai->ai_next) {
        if (same_family(from, ai->ai_addr))
            return 1; // expect: leak list
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
