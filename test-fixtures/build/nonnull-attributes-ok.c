// fixture: build/nonnull-attributes-ok — returns_nonnull and nonnull declared in a header rule out the NULL paths
#include "include/xalloc.h"

struct pair *pair_new(const char *x, const char *y)
{
	struct pair *p;
	char *a = xstrdup(x);
	char *b = xstrdup(y);
	if (a == NULL || b == NULL)
		return NULL;
	p = xmalloc(sizeof *p);
	p->a = a;
	p->b = b;
	return p;
}

int pair_set_a(struct pair *p, const char *s)
{
	char *copy = xstrdup(s);
	if (p == NULL)
		return -1;
	xfree(p->a);
	p->a = copy;
	return 0;
}
