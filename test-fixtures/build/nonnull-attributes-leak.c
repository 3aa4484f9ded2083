// fixture: build/nonnull-attributes-leak — without returns_nonnull or nonnull, the NULL paths are real and lose the block
#include "include/xalloc.h"

struct pair *pair_new(const char *x, const char *y)
{
	struct pair *p;
	char *a = try_strdup(x);
	char *b = try_strdup(y);
	if (a == NULL || b == NULL)
		return NULL; // expect: leak a; leak b
	p = xmalloc(sizeof *p);
	p->a = a;
	p->b = b;
	return p;
}

int pair_set_b(struct pair *p, const char *s)
{
	char *copy = xstrdup(s);
	if (p == NULL)
		return -1; // expect: leak copy
	xfree(p->b);
	p->b = copy;
	return 0;
}
