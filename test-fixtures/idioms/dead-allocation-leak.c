// fixture: idioms/dead-allocation-leak — the earlier test lets the format through, and its copy is dropped
// mode: strict
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * As dead-allocation-ok.c, but the first test also accepts JSON: the quoted
 * copy is made and lost at the return.
 *
 * Idiom: `export_entry` refuses every format but plain text and CSV at its
 * top. Further down, code left from a version that also wrote JSON quotes
 * the name for that format and never frees the copy. The JSON branch cannot
 * be taken past the first test, so nothing is allocated and nothing leaks:
 * the path to the `strdup` is checked from the function's entry, where its
 * conditions contradict each other.
 * Fixed twin: dead-allocation-ok.c.
 */

enum format { FMT_PLAIN, FMT_CSV, FMT_JSON };

int export_entry(enum format format, const char *name, FILE *out)
{
    char *quoted = NULL;

    if (format != FMT_PLAIN && format != FMT_CSV && format != FMT_JSON)
        return -1;
    if (format == FMT_JSON)
        quoted = strdup(name);
    fprintf(out, "%s\n", name);
    return 0;                                   // expect: leak quoted
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    return export_entry((enum format)atoi(argv[1]), argv[2], stdout);
}
