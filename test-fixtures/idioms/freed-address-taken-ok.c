// fixture: idioms/freed-address-taken-ok — a local whose address is taken, freed: it no longer holds the block
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

static int formats;

static void add_format(const char *f)
{
	if (*f != '\n')
		formats++;
}

/*
 * util-linux hexdump's `addfile`: `fmt` aliases the line `getline` keeps in `buf` (whose
 * address the call takes), and the loop goes round again. Backwards from `fmt = buf`, the
 * path through `getline`'s reallocation frees `buf`'s old block: past that free, `buf` no
 * longer holds the lost block. `buf`'s address is taken, so it is a location of heap-like
 * memory tagged with `buf`, and the free's miss on `buf` has to drop that tag and take the
 * region out of S, as every other transfer does. It did not: joined with the path that keeps
 * the buffer, the miss was lost and `fmt = buf` was reported as a leak of the line.
 */
void add_file(FILE *fp)
{
	char *fmt, *buf = NULL;
	size_t n = 0;
	while (getline(&buf, &n, fp) != -1) {
		fmt = buf;
		if (!*fmt || *fmt == '#')
			continue;
		add_format(fmt);
	}
	free(buf);
}
