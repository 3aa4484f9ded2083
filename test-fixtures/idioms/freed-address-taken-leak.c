// fixture: idioms/freed-address-taken-leak — the line getline keeps is lost on an early return
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

static int formats;

static void add_format(const char *f)
{
	if (*f != '\n')
		formats++;
}

/* As freed-address-taken-ok.c, with a `return` out of the loop that does not free `buf`. */
int add_file(FILE *fp)
{
	char *fmt, *buf = NULL;
	size_t n = 0;
	while (getline(&buf, &n, fp) != -1) {
		fmt = buf;
		if (*fmt == '!')
			return -1; // expect: leak fmt
		if (!*fmt || *fmt == '#')
			continue;
		add_format(fmt);
	}
	free(buf);
	return 0;
}
