/* A project's allocation helpers, their bodies in another library: GCC attributes say which
 * never return NULL (`returns_nonnull`) and which functions are never passed NULL
 * (`nonnull`). */
#ifndef FIXTURE_XALLOC_H
#define FIXTURE_XALLOC_H
#include <stddef.h>

#define XA_MALLOC __attribute__((malloc, malloc(xfree, 1)))
#define XA_RETURNS_NONNULL __attribute__((returns_nonnull))

void xfree(void *p);
/* Exit the program when memory runs out. */
XA_MALLOC XA_RETURNS_NONNULL void *xmalloc(size_t n);
XA_MALLOC XA_RETURNS_NONNULL char *xstrdup(const char *s);
/* Returns NULL when memory runs out. */
XA_MALLOC char *try_strdup(const char *s);

struct pair {
	char *a;
	char *b;
};

/* Callers never pass NULL. */
int pair_set_a(struct pair *p, const char *s) __attribute__((nonnull(1)));
/* May be passed NULL. */
int pair_set_b(struct pair *p, const char *s);

#endif
