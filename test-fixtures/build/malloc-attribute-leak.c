// fixture: build/malloc-attribute-leak — an allocator and its deallocator known from __attribute__((malloc(dealloc)))
#include <stddef.h>
#include "include/util.h"

int fill(int n)
{
	struct buf *b = buf_new(n);
	if (b == NULL)
		return -1;
	if (n > 100)
		return -2; // expect: leak b
	b->len = n;
	buf_free(b);
	return 0;
}
