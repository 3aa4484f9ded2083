// fixture: idioms/unknown-difference-ok — `lo < hi` of two unmodelled results is not `x < x`
#include <stdlib.h>

/*
 * Idiom: as in unknown-difference-leak.c, but the early return frees the
 * buffer first. Leaking twin: unknown-difference-leak.c.
 */

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    char *buf = malloc(64);
    if (buf == NULL)
        return 2;
    int lo = atoi(argv[1]);
    int hi = atoi(argv[2]);
    if (lo < hi) {
        free(buf);
        return 1;
    }
    free(buf);
    return 0;
}
