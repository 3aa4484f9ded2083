#include <stdlib.h>

struct node {
    struct node *next;
    int key;
};

struct node *buckets[32];

/* A condition on a hash (Bob Jenkins' mix, as uthash's HASH_JEN expands to: every step
 * reads two variables). */
void insert_odd(const unsigned char *k) {
    struct node *n = malloc(sizeof *n);
    if (!n)
        return;
    unsigned i = 0x9e3779b9u, j = 0x9e3779b9u, h = 0xfeedbeefu;
    i += k[0];
    j += k[1];
    h += k[2];
    i -= j; i -= h; i ^= (h >> 13);
    j -= h; j -= i; j ^= (i << 8);
    h -= i; h -= j; h ^= (j >> 13);
    i -= j; i -= h; i ^= (h >> 12);
    j -= h; j -= i; j ^= (i << 16);
    h -= i; h -= j; h ^= (j >> 5);
    i -= j; i -= h; i ^= (h >> 3);
    j -= h; j -= i; j ^= (i << 10);
    h -= i; h -= j; h ^= (j >> 15);
    i -= j; i -= h; i ^= (h >> 13);
    j -= h; j -= i; j ^= (i << 8);
    h -= i; h -= j; h ^= (j >> 13);
    i -= j; i -= h; i ^= (h >> 12);
    j -= h; j -= i; j ^= (i << 16);
    h -= i; h -= j; h ^= (j >> 5);
    i -= j; i -= h; i ^= (h >> 3);
    j -= h; j -= i; j ^= (i << 10);
    h -= i; h -= j; h ^= (j >> 15);
    if (h & 1) {
        free(n);
        return;
    }
    n->next = buckets[h & 31];
    buckets[h & 31] = n;
}

/* A slot chosen by a hash; nothing else is overwritten. */
void evict(const unsigned char *k) {
    struct node *n = malloc(sizeof *n);
    if (!n)
        return;
    unsigned i = 0x9e3779b9u, j = 0x9e3779b9u, h = 0xfeedbeefu;
    i += k[0];
    j += k[1];
    h += k[2];
    i -= j; i -= h; i ^= (h >> 13);
    j -= h; j -= i; j ^= (i << 8);
    h -= i; h -= j; h ^= (j >> 13);
    i -= j; i -= h; i ^= (h >> 12);
    j -= h; j -= i; j ^= (i << 16);
    h -= i; h -= j; h ^= (j >> 5);
    i -= j; i -= h; i ^= (h >> 3);
    j -= h; j -= i; j ^= (i << 10);
    h -= i; h -= j; h ^= (j >> 15);
    i -= j; i -= h; i ^= (h >> 13);
    j -= h; j -= i; j ^= (i << 8);
    h -= i; h -= j; h ^= (j >> 13);
    i -= j; i -= h; i ^= (h >> 12);
    j -= h; j -= i; j ^= (i << 16);
    h -= i; h -= j; h ^= (j >> 5);
    i -= j; i -= h; i ^= (h >> 3);
    j -= h; j -= i; j ^= (i << 10);
    h -= i; h -= j; h ^= (j >> 15);
    n->next = 0;
    buckets[h & 31] = n;
}
