// fixture: build/returns-nonnull-body-leak — a realloc wrapper that returns NULL on failure
#include "include/xrealloc.h"

/*
 * `try_realloc_array` returns NULL when realloc fails, the old block still held: storing its
 * result over `l->buf` loses that block. Fixed twin: returns-nonnull-body-ok.c.
 */

struct cell {
	int c;
	int width;
};

struct line {
	struct cell *buf;
	size_t len;
};

void line_grow(struct line *l, size_t want)
{
	while (want >= l->len) {
		l->len *= 2;
		l->buf = try_realloc_array(l->buf, l->len, sizeof(struct cell)); // expect: leak l->buf
	}
}
