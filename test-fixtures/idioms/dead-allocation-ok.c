// fixture: idioms/dead-allocation-ok — an allocation under a test that an earlier return already excludes
// mode: strict
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: `export_entry` refuses every format but plain text and CSV at its
 * top. Further down, code left from a version that also wrote JSON quotes
 * the name for that format and never frees the copy. The JSON branch cannot
 * be taken past the first test, so nothing is allocated and nothing leaks:
 * the path to the `strdup` is checked from the function's entry, where its
 * conditions contradict each other.
 * Leaking twin: dead-allocation-leak.c.
 */

enum format { FMT_PLAIN, FMT_CSV, FMT_JSON };

int export_entry(enum format format, const char *name, FILE *out)
{
    char *quoted = NULL;

    if (format != FMT_PLAIN && format != FMT_CSV)
        return -1;
    if (format == FMT_JSON)
        quoted = strdup(name);
    fprintf(out, "%s\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    return export_entry((enum format)atoi(argv[1]), argv[2], stdout);
}
