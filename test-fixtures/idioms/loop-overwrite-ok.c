// fixture: idioms/loop-overwrite-ok — a buffer allocated on every iteration is freed in the same iteration
#include <stdlib.h>

/*
 * Idiom: `row = malloc(...)` inside a loop, freed at the end of the loop
 * body, so the next assignment overwrites a dangling (already freed)
 * pointer, which is not a leak.
 * Leaking twin: loop-overwrite-leak.c.
 */

static int fill_row(char *row, int width, int seed)
{
    int i, sum = 0;

    for (i = 0; i < width; i++) {
        row[i] = (char)('a' + (seed + i) % 26);
        sum += row[i];
    }
    row[width] = '\0';
    return sum;
}

int render_rows(int nrows, int width)
{
    char *row = NULL;
    int r, total = 0;

    for (r = 0; r < nrows; r++) {
        row = malloc((size_t)width + 1);
        if (row == NULL)
            return -1;
        total += fill_row(row, width, r);
        free(row);
    }
    return total;
}
