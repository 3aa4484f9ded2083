// fixture: idioms/returned-argument-leak — a test assertion returns its condition; one failure branch forgets the copy
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: libarchive's test harness. `check(file, line, value, what)` counts
 * the assertion, logs a failure when `value` is 0, and returns `value`; a
 * test stops at the first failed check and releases what it made. The
 * logging is large enough that the analysis applies `check` through its
 * summary instead of walking it: the summary must still say that the call
 * returns its `value` argument, or the branch `r == NULL` cannot be told from
 * the branch where `r` holds the block.
 * Fixed twin: returned-argument-ok.c. Here the second failure branch
 * returns without freeing `name`.
 */

static int assertions;
static int failures;
static int verbose;
static FILE *log_file;
static char last_file[256];
static int last_line;
static char message[1024];

static void log_failure(const char *file, int line, const char *what)
{
	size_t n = strlen(file);
	size_t i;

	failures++;
	last_line = line;
	if (n >= sizeof(last_file))
		n = sizeof(last_file) - 1;
	for (i = 0; i < n; i++)
		last_file[i] = file[i];
	last_file[n] = '\0';
	snprintf(message, sizeof(message), "%s:%d: assertion failed: %s", file, line, what);
	if (verbose > 1)
		fprintf(stderr, "%s\n", message);
	if (verbose > 0)
		fprintf(stderr, "  (%d of %d failed)\n", failures, assertions);
	if (log_file == NULL)
		log_file = fopen("test.log", "a");
	if (log_file != NULL) {
		fprintf(log_file, "%s\n", message);
		fprintf(log_file, "  file: %s\n", last_file);
		fprintf(log_file, "  line: %d\n", last_line);
		fprintf(log_file, "  failures so far: %d\n", failures);
		fprintf(log_file, "  assertions so far: %d\n", assertions);
		fflush(log_file);
	}
	if (failures > 100) {
		fprintf(stderr, "too many failures\n");
		if (log_file != NULL)
			fclose(log_file);
		log_file = NULL;
		failures = 0;
	}
	if (verbose > 2) {
		fprintf(stderr, "last file: %s\n", last_file);
		fprintf(stderr, "last line: %d\n", last_line);
		fprintf(stderr, "message: %s\n", message);
	}
}

static int check(const char *file, int line, int value, const char *what)
{
	assertions++;
	if (!value)
		log_failure(file, line, what);
	return value;
}

struct reader {
	char *buf;
	size_t len;
};

int test_reader(const char *text)
{
	struct reader *r;
	char *name;

	if (!check(__FILE__, __LINE__, (name = strdup(text)) != NULL, "name"))
		return 1;
	if (!check(__FILE__, __LINE__, (r = malloc(sizeof(*r))) != NULL, "reader"))
		return 1; // expect: leak name
	r->buf = name;
	r->len = strlen(name);
	if (!check(__FILE__, __LINE__, r->len > 0, "length")) {
		free(r->buf);
		free(r);
		return 1;
	}
	free(r->buf);
	free(r);
	return 0;
}
