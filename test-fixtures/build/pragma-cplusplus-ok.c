// fixture: build/pragma-cplusplus-ok — a header's C++ arm and its `_Pragma`s are not C
#include <stdlib.h>
#include <string.h>
#include "include/checks.h"

/*
 * `CHECKED_CAST(char *, block)` is `((char *)(block))` to a C compiler: `__cplusplus` is
 * not defined. And `CHECK` expands to a `do { … } while (0)` whose `_Pragma`s are
 * directives, not calls. Read as `static_cast<char *>(block)` (a syntax error), `bytes`
 * would be unknown and its `free` would not be the block's.
 */
int fill(size_t n)
{
	void *block = malloc(n);
	if (block == NULL)
		return -1;
	CHECK(n > 0);
	char *bytes = CHECKED_CAST(char *, block);
	memset(bytes, 'x', n);
	free(bytes);
	return 0;
}
