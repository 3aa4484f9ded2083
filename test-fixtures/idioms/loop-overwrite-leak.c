// fixture: idioms/loop-overwrite-leak — a buffer is allocated on every iteration and only the last one is freed
#include <stdlib.h>

/*
 * Idiom: `row = malloc(...)` inside a loop.  Each iteration overwrites the
 * previous row, which nothing else references: the assignment loses it.
 * Only the final row is freed after the loop.  (On malloc failure `row`
 * is NULL, so the early return itself loses nothing.)
 * Fixed twin: loop-overwrite-ok.c.
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
        row = malloc((size_t)width + 1);        // expect: leak row
        if (row == NULL)
            return -1;
        total += fill_row(row, width, r);
    }
    free(row);
    return total;
}
