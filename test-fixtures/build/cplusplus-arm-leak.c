// fixture: build/cplusplus-arm-leak — the C++ arm of a shared header is no code of a C build
#include <stdlib.h>
#include <stddef.h>

/*
 * Idiom: an inline helper in a header shared with C++ (freerdp's
 * winpr/stream.h), with a C++ spelling under `#ifdef __cplusplus`. A C
 * compiler never defines `__cplusplus`, so that arm is dead; read as code,
 * `std::distance` is a syntax error, the helper "may write anything",
 * and the leak after the call was hidden. Fixed twin: cplusplus-arm-ok.c.
 */
static inline size_t span_of(const char *begin, const char *end)
{
#ifdef __cplusplus
	return static_cast<size_t>(std::distance(begin, end));
#else
	return (size_t)(end - begin);
#endif
}

char *copy_span(const char *begin, const char *end)
{
	char *out = malloc(16);
	if (out == NULL)
		return NULL;
	size_t n = span_of(begin, end);
	if (n > 15)
		return NULL; // expect: leak out
	out[n] = 0;
	return out;
}
