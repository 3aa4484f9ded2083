// fixture: build/ifdef-header-ok — an `if` whose head is chosen by `#ifdef … #else`, its block freed on every path
#include <stdlib.h>
#include <string.h>

struct conn {
	int refs;
	char *buf;
};

/*
 * The head of the `if` differs with the build; the body after `#endif` belongs to both heads,
 * and the code after the body runs when the condition fails: `buf` is freed there too.
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
	free(buf);
	return 1; // expect: proved
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
			break;
	}
	free(tmp);
	return 0; // expect: proved
}
