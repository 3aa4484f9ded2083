// fixture: idioms/error-path-ok — every early return frees the scratch buffer
#include <stdlib.h>

/*
 * Idiom: allocate a scratch buffer, validate the input, bail out on error.
 * The error path frees the buffer before returning, so no path leaks.
 * Leaking twin: error-path-leak.c.
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
    if (pkt->len < 0 || pkt->len > (int)sizeof pkt->body) {
        free(copy);
        return -1;
    }
    for (i = 0; i < pkt->len; i++)
        copy[i] = pkt->body[i] ^ 0x5a;
    for (i = 0; i < pkt->len; i++)
        sum = (sum * 31 + copy[i]) & 0xffff;
    free(copy);
    return sum;
}
