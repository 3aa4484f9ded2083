// fixture: idioms/getline-leak — getline allocates the buffer even when it returns -1
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

/*
 * `getline(&line, &size, fp)` with `line == NULL` allocates a buffer and stores it in `line`,
 * and it may do so and still return -1 (end of file on the first read): the caller must free
 * `line` whatever the result. The early return on -1 loses it.
 */
long count_lines(FILE *fp)
{
	char *line = NULL;
	size_t size = 0;
	long n = 0;
	for (;;) {
		ssize_t rc = getline(&line, &size, fp);
		if (rc < 0)
			return n; // expect: leak line
		n++;
	}
}
