// fixture: build/fclose-release-leak — a stream from a malloc-attributed opener is lost when it is not closed
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
 * allocation fails the stream must be closed. Here it is not, and the stream
 * (a block the C library allocated) is lost. Fixed twin: fclose-release-ok.c.
 */
struct cfg *cfg_new(const char *path)
{
	FILE *fp = cfg_open(path, "r");
	if (fp == NULL)
		return NULL;
	struct cfg *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL; // expect: leak fp
	c->fp = fp;
	return c;
}
