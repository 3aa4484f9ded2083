// fixture: build/ifdef-in-statement-leak — every arm of an `#ifdef` inside a statement is analysed
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct box {
	char *data;
};

static int verbose;

/* As in the -ok twin, but `fatal` exits only when its condition holds: it may return, and
 * `copy_name`'s `return NULL` after it then leaks `p`. */
static void fatal(const char *what)
{
	if (what != NULL
#ifdef VERBOSE_ERRORS
	    && verbose
#endif
	   )
		exit(1);
}

char *copy_name(const char *s)
{
	char *p = malloc(64);
	if (p == NULL)
		return NULL;
	if (strlen(s) >= 64) {
		fatal("name too long");
		return NULL; // expect: leak p
	}
	strcpy(p, s);
	return p;
}

/*
 * With ALWAYS_STORE the box always takes `p`; without it (the `#else` arm, not the first one)
 * a non-positive `n` returns and loses `p`. Lowering only the first arm of a group inside a
 * condition would prove this function.
 */
int store(struct box *b, int n)
{
	char *p = malloc(16);
	if (p == NULL)
		return -1;
	if (
#ifdef ALWAYS_STORE
	    1
#else
	    n > 0
#endif
	   ) {
		b->data = p; // expect: unproved input-dependent
		return 0;
	}
	return -1; // expect: leak p
}
