// fixture: idioms/getline-ok — the buffer getline allocates is freed after the loop
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

/* As getline-leak.c: `line` is freed after the last call, whatever it returned. */
long count_lines(FILE *fp)
{
	char *line = NULL;
	size_t size = 0;
	long n = 0;
	for (;;) {
		ssize_t rc = getline(&line, &size, fp);
		if (rc < 0)
			break;
		n++;
	}
	free(line);
	return n;
}
