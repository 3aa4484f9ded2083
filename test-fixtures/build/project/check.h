/* Test helpers in the parent directory of the tests, as `#include "../check.h"`. */
#ifndef CHECK_H
#define CHECK_H
#include <stddef.h>
#include "pool.h"

void check_fail(const char *what) __attribute__((noreturn));

#define CHECK_ALLOC(p)                                                          \
	do {                                                                    \
		if ((p) == NULL)                                                \
			check_fail(#p);                                         \
	} while (0)

#endif
