// fixture: build/returns-nonnull-body-ok — a realloc wrapper with a body, declared returns_nonnull
#include "include/xrealloc.h"

/*
 * `xrealloc_array` dies when realloc fails for a nonzero size; for a zero size (a product it
 * does not look at) its body could return NULL, but it is declared `returns_nonnull`, so no
 * path of it returns NULL and `l->buf` is never overwritten by NULL with its block still
 * held. Leaking twin: returns-nonnull-body-leak.c.
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
		l->buf = xrealloc_array(l->buf, l->len, sizeof(struct cell));
	}
}
