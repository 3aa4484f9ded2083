// fixture: idioms/library-writes-leak — results that library calls store through pointer arguments decide a leaking branch
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Idiom: `sscanf(s, "%d", &n)`, `read(fd, buf, n)`, `strtol(s, &end, 10)`,
 * `stat(path, &st)` store their results through a pointer argument (for
 * `read`, the second). A branch on such a result must not be decided by the
 * value the variable had before the call: each function below leaks `p` on
 * one branch that the stored result can take. Earlier builds modelled only
 * writes through the first argument, kept `n == 0` across the `sscanf` and
 * "proved" these. `getopt` sets `optind` and `strtol` sets `errno` (globals the
 * program reads afterwards) in the same way. Fixed twin: library-writes-ok.c.
 */

int parse_count(const char *s)
{
    int n = 0;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    if (sscanf(s, "%d", &n) != 1) {
        free(p);
        return -1;
    }
    if (n > 5)
        return 1;                       // expect: leak p
    free(p);
    return 0;
}

int read_command(int fd)
{
    char buf[4];
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    buf[0] = 0;
    if (read(fd, buf, 1) < 0) {
        free(p);
        return -1;
    }
    if (buf[0] == 'q')
        return 1;                       // expect: leak p
    free(p);
    return 0;
}

long parse_number(const char *s)
{
    char *end = NULL;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    long v = strtol(s, &end, 10);
    if (end != NULL && *end != '\0')
        return -1;                      // expect: leak p
    free(p);
    return v;
}

long file_size(const char *path)
{
    struct stat st;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    st.st_size = 0;
    if (stat(path, &st) != 0) {
        free(p);
        return -1;
    }
    if (st.st_size > 4096)
        return -1;                      // expect: leak p
    free(p);
    return (long)st.st_size;
}

int parse_options(int argc, char **argv)
{
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    optind = 1;
    while (getopt(argc, argv, "ab") != -1)
        ;
    if (optind > 5)
        return 1;                       // expect: leak p
    free(p);
    return 0;
}

long checked_number(const char *s)
{
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno != 0)
        return -1;                      // expect: leak p
    free(p);
    return v;
}
