// fixture: build/pragma-cplusplus-leak — a header's C++ arm and its `_Pragma`s are not C
#include <stdlib.h>
#include <string.h>
#include "include/checks.h"

/* As pragma-cplusplus-ok.c, with an early return that forgets the block. */
int fill(size_t n, int fast)
{
	void *block = malloc(n);
	if (block == NULL)
		return -1;
	CHECK(n > 0);
	char *bytes = CHECKED_CAST(char *, block);
	memset(bytes, 'x', n);
	if (fast)
		return 1; // expect: leak block
	free(bytes);
	return 0;
}
