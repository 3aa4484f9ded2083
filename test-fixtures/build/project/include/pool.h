/* Allocator wrappers, found only through the compile database's -Iinclude. */
#ifndef POOL_H
#define POOL_H
#include <stdlib.h>

#if POOL_DEBUG
#define pool_alloc(n) debug_alloc((n), __FILE__, __LINE__)
void *debug_alloc(size_t n, const char *file, int line);
#else
static inline void *pool_alloc(size_t n)
{
	return malloc(n);
}
#endif

static inline void pool_free(void *p)
{
	free(p);
}

#endif
