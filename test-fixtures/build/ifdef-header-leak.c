// fixture: build/ifdef-header-leak — an `if` whose head is chosen by `#ifdef … #else` guards its body only
#include <stdlib.h>
#include <string.h>

struct conn {
	int refs;
	char *buf;
};

/*
 * As in the -ok twin, but the body that releases `buf` returns early: when the count stays
 * positive the function goes on past the body and returns with the block unreferenced. The
 * head of the `if` differs with the build; the body after `#endif` belongs to both heads.
 * Read as two nested `if`s (tree-sitter's parse), the code after the body was unreachable and
 * this leak was "proved" away.
 */
int conn_drop(struct conn *c, const char *s)
{
	char *buf = malloc(strlen(s) + 1);
	if (buf == NULL)
		return -1;
	strcpy(buf, s);
#ifdef USE_ATOMICS
	if (__sync_sub_and_fetch(&c->refs, 1) == 0)
#else
	if (--c->refs == 0)
#endif
	{
		free(buf);
		return 0;
	}
	return 1; // expect: leak buf
}

/* The same with a loop head: the buffer is freed after the loop, on every path. */
int drain(struct conn *c)
{
	char *tmp = malloc(16);
	if (tmp == NULL)
		return -1;
#ifdef USE_ATOMICS
	while (__sync_sub_and_fetch(&c->refs, 1) > 0)
#else
	while (--c->refs > 0)
#endif
	{
		if (c->refs == 7)
			return 7; // expect: leak tmp
	}
	free(tmp);
	return 0;
}
