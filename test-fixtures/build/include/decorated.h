/* Helpers whose heads carry attribute macros, as project headers write them (htop's
 * `ATTR_NONNULL`, nginx's `ngx_cdecl`, freerdp's `WINPR_ATTR_NODISCARD`). What the macros
 * expand to depends on the compiler, which this header does not know; either way they are
 * only attributes. */
#ifndef DECORATED_H
#define DECORATED_H

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ATTRIBUTES
#define ATTR_NONNULL __attribute__((nonnull))
#define ATTR_ALLOC_SIZE1(n) __attribute__((alloc_size(n)))
#define ATTR_RETNONNULL __attribute__((returns_nonnull))
#else
#define ATTR_NONNULL
#define ATTR_ALLOC_SIZE1(n)
#define ATTR_RETNONNULL
#endif

ATTR_RETNONNULL ATTR_ALLOC_SIZE1(1)
void *checked_alloc(size_t size);

/* Reads the string and keeps nothing. */
ATTR_NONNULL
static inline int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Releases the string. */
ATTR_NONNULL
static inline void release(char *s)
{
	free(s);
}

#endif
