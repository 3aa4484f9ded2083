// fixture: build/ifdef-in-statement-ok — an undecided `#ifdef` inside a statement is a choice of statements
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct box {
	char *data;
};

static int verbose;

/*
 * `fatal` never returns, whichever arm of the undecided VERBOSE_ERRORS group the build has:
 * the group lies inside the `if` condition, where tree-sitter sees a syntax error. Before,
 * the condition was opaque, `fatal` (a function with opaque code) was never counted as never
 * returning, and the `return NULL` after `fatal(…)` in `copy_name` was reported as a leak.
 */
static void fatal(const char *what)
{
	if (what != NULL
#ifdef VERBOSE_ERRORS
	    && verbose
#endif
	   )
		fprintf(stderr, "fatal: %s\n", what);
	exit(1);
}

char *copy_name(const char *s)
{
	char *p = malloc(64);
	if (p == NULL)
		return NULL;
	if (strlen(s) >= 64) {
		fatal("name too long");
		return NULL;
	}
	strcpy(p, s);
	return p;
}

/* As in the -leak twin, with `p` freed before the early return that the `#else` arm takes. */
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
	free(p);
	return -1;
}
