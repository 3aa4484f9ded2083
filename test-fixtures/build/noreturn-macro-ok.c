// fixture: build/noreturn-macro-ok — a project's noreturn macro on a function without a body
#include <stdlib.h>
#include "include/util.h"

int run(int mode)
{
	char *buf = malloc(32);
	if (buf == NULL)
		fatal("out of memory");
	if (mode < 0) {
		fatal("bad mode");
		return -1;
	}
	buf[0] = (char)mode;
	free(buf);
	return 0;
}
