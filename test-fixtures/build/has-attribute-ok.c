// fixture: build/has-attribute-ok — noreturn behind `#if __has_attribute(noreturn) || __GNUC_PREREQ(2, 5)`
#include <stdlib.h>
#include "include/compat.h"

int run(int mode)
{
	char *buf = malloc(32);
	if (buf == NULL)
		compat_fail("out of memory");
	if (mode < 0) {
		compat_fail("bad mode");
		return -1;
	}
	buf[0] = (char)mode;
	free(buf);
	return 0;
}
