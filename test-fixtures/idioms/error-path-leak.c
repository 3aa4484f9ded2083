// fixture: idioms/error-path-leak — early return on bad input forgets the scratch buffer
#include <stdlib.h>

/*
 * Idiom: allocate a scratch buffer, then validate the input and bail out
 * on error.  The validation failure returns without freeing the buffer:
 * `copy` is the last reference to it when the function returns.
 * Fixed twin: error-path-ok.c.
 */

struct packet {
    int len;
    unsigned char body[64];
};

int packet_checksum(const struct packet *pkt)
{
    unsigned char *copy;
    int i, sum = 0;

    copy = malloc(sizeof pkt->body);
    if (copy == NULL)
        return -1;
    if (pkt->len < 0 || pkt->len > (int)sizeof pkt->body)
        return -1;                              // expect: leak copy
    for (i = 0; i < pkt->len; i++)
        copy[i] = pkt->body[i] ^ 0x5a;
    for (i = 0; i < pkt->len; i++)
        sum = (sum * 31 + copy[i]) & 0xffff;
    free(copy);
    return sum;
}
