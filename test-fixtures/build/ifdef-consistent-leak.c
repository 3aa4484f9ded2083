// fixture: build/ifdef-consistent-leak — one value of an undecided macro per file still finds the arm that leaks
#include <stdlib.h>
#include <string.h>

/*
 * As in the -ok twin, but `copy_name` returns without `xfree` when the id is negative: a
 * leak without STATIC_POOL (with it, the pool arm's block is not heap memory).
 */
static char pool[4096];
static size_t pool_used;

void *xalloc(size_t n)
{
	void *p;
#ifdef STATIC_POOL
	if (n > sizeof pool - pool_used)
		return NULL;
	p = pool + pool_used;
	pool_used += n;
#else
	p = malloc(n);
#endif
	return p;
}

void xfree(void *x)
{
#ifndef STATIC_POOL
	free(x);
#else
	(void)x;
#endif
}

struct entry {
	char *name;
	int id;
};

int copy_name(struct entry *e, const char *s)
{
	char *copy = xalloc(strlen(s) + 1);
	if (copy == NULL)
		return -1;
	strcpy(copy, s);
	if (e->id < 0)
		return -1; // expect: leak copy
	e->name = copy; // expect: unproved input-dependent
	return 0;
}
