// fixture: build/decorated-head-ok — a header function whose head carries attribute macros releases what it is given
// mode: strict
#include "include/decorated.h"

/* As in the -leak twin, but the copy is handed to `release`, which frees it. (`s` and
 * `prefix` are the caller's: whether they leak depends on it.) */
int has_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(s) + 1;
	char *copy = malloc(n);
	int r;
	if (copy == NULL)
		return -1; // expect: unproved input-dependent; unproved input-dependent
	memcpy(copy, s, n);
	r = starts_with(copy, prefix);
	release(copy);
	return r; // expect: unproved input-dependent; unproved input-dependent
}
