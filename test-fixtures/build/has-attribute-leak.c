// fixture: build/has-attribute-leak — a function the same header does not declare noreturn returns, and the block is lost
#include <stdlib.h>
#include "include/compat.h"

int run(int mode)
{
	char *buf = malloc(32);
	if (buf == NULL)
		compat_fail("out of memory");
	if (mode < 0) {
		compat_warn("bad mode");
		return -1; // expect: leak buf
	}
	buf[0] = (char)mode;
	free(buf);
	return 0;
}
