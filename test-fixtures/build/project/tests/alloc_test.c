// fixture: build/project/tests/alloc_test — wrappers from ../check.h and include/ (via compile_commands.json)
#include "../check.h"

int test_copy(int n)
{
	char *a = pool_alloc(16);
	CHECK_ALLOC(a);
	if (n < 0)
		return 1; // expect: leak a
	a[0] = (char)n;
	pool_free(a);
	return 0;
}

int test_release(void)
{
	char *b = pool_alloc(8);
	CHECK_ALLOC(b);
	b[0] = 'x';
	pool_free(b);
	return 0;
}
