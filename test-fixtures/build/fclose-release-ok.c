// fixture: build/fclose-release-ok — a stream from a malloc-attributed opener is closed on the error path
#include <stdio.h>
#include <stdlib.h>

/* freerdp's winpr_fopen: declared with GCC's malloc attribute, released by fclose. */
__attribute__((malloc)) FILE *cfg_open(const char *path, const char *mode);

struct cfg {
	FILE *fp;
	int readonly;
};

/*
 * Idiom: open a stream, then allocate the object that will own it; when the
 * allocation fails the stream must be closed, and is: `fclose` releases it (its
 * status is not known). Leaking twin: fclose-release-leak.c.
 */
struct cfg *cfg_new(const char *path)
{
	FILE *fp = cfg_open(path, "r");
	if (fp == NULL)
		return NULL;
	struct cfg *c = calloc(1, sizeof *c);
	if (c == NULL) {
		if (fclose(fp) != 0)
			perror(path);
		return NULL;
	}
	c->fp = fp;
	return c;
}
