// fixture: build/ifdef-consistent-ok — an undecided macro has one value in all the functions of a file
#include <stdlib.h>
#include <string.h>

/*
 * With STATIC_POOL, `xalloc` hands out pieces of a static buffer and `xfree` gives nothing
 * back to the heap; without it, both go to `malloc` and `free`. Which one a build has is not
 * known here (no header defines STATIC_POOL), but it is the same in `xalloc` and `xfree`:
 * a `malloc`ed block never reaches the pool's `xfree`. Taken as two separate choices, the
 * path that allocates with `malloc` and "frees" with the pool arm was reported as a leak of
 * `copy` in `copy_name`; it is proved now.
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
	if (e->id < 0) {
		xfree(copy);
		return -1;
	}
	e->name = copy; // expect: unproved input-dependent
	return 0;
}
