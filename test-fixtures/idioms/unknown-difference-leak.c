// fixture: idioms/unknown-difference-leak — `lo < hi` of two unmodelled results is not `x < x`
#include <stdlib.h>

/*
 * Idiom: a buffer is dropped on an early return taken when the first number
 * read is below the second. Both come from `atoi`, whose results the
 * analysis does not name: their difference is not zero (a run with "1 2"
 * leaks the buffer). Fixed twin: unknown-difference-ok.c.
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
    if (lo < hi)
        return 1;                       // expect: leak buf
    free(buf);
    return 0;
}
