/* Checks as winpr/assert.h writes them: an assertion that silences a warning around its
 * body with `_Pragma`, and a checked cast spelled `static_cast` for a C++ compiler reading
 * the same header. A C compiler sees neither. */
#ifndef FIXTURE_CHECKS_H
#define FIXTURE_CHECKS_H
#include <stdlib.h>

#if defined(__cplusplus)
#define CHECKED_CAST(T, v) static_cast<T>(v)
#else
#define CHECKED_CAST(T, v) ((T)(v))
#endif

#define CHECK(cond)                                                             \
	do {                                                                    \
		_Pragma("GCC diagnostic push")                                  \
		_Pragma("GCC diagnostic ignored \"-Wtype-limits\"")             \
		if (!(cond))                                                    \
			abort();                                                \
		_Pragma("GCC diagnostic pop")                                   \
	} while (0)

#endif
