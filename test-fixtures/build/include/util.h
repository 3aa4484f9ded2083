/* Project attributes behind macros: a noreturn error function, an allocator paired with
 * its deallocator. */
#ifndef FIXTURE_UTIL_H
#define FIXTURE_UTIL_H

#if defined(__GNUC__) || defined(__clang__)
#define UTIL_NORETURN __attribute__((noreturn))
#define UTIL_MALLOC(dealloc) __attribute__((malloc, malloc(dealloc, 1)))
#else
#define UTIL_NORETURN _Noreturn
#define UTIL_MALLOC(dealloc)
#endif

struct buf {
	char *data;
	int len;
};

UTIL_NORETURN void fatal(const char *msg);
void buf_free(struct buf *b);
UTIL_MALLOC(buf_free) struct buf *buf_new(int size);

#endif
