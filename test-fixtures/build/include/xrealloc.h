/* A project's realloc wrapper with its body in the header (util-linux's xreallocarray): it
 * dies when memory runs out, and its declaration says it never returns NULL. */
#ifndef FIXTURE_XREALLOC_H
#define FIXTURE_XREALLOC_H
#include <stdlib.h>

#define XR_RETURNS_NONNULL __attribute__((returns_nonnull))

static inline XR_RETURNS_NONNULL void *xrealloc_array(void *ptr, size_t nelems, size_t size)
{
	void *ret = realloc(ptr, nelems * size);

	if (!ret && size && nelems)
		exit(1);
	return ret;
}

/* Returns NULL, the old block still held, when memory runs out. */
static inline void *try_realloc_array(void *ptr, size_t nelems, size_t size)
{
	return realloc(ptr, nelems * size);
}

#endif
