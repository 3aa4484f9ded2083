// fixture: build/decorated-head-leak — a header function whose head carries attribute macros is analysed from its body
#include "include/decorated.h"

/*
 * `starts_with` only reads the copy, so the copy is lost at the return. Read without its
 * macros, the header's `ATTR_RETNONNULL ATTR_ALLOC_SIZE1(1)` prototype and the
 * `ATTR_NONNULL` before `starts_with` parse as one broken declaration: the function was
 * lost, its call had no body, and the copy "escaped" into it.
 */
int has_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(s) + 1;
	char *copy = malloc(n);
	int r;
	if (copy == NULL)
		return -1;
	memcpy(copy, s, n);
	r = starts_with(copy, prefix);
	return r; // expect: leak copy
}
