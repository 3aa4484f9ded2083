// fixture: idioms/library-writes-ok — library calls write only through the arguments they are given
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Idiom: as in library-writes-leak.c, results stored through a pointer
 * argument (`sscanf`, `read`, `strtol`, `stat`); here `p` is freed on every
 * branch that depends on them. The calls write nothing else: `mode` keeps
 * the 0 it had before, so the early returns that need `mode != 0` are never
 * taken. `getopt` and `strtol` set the globals `optind` and `errno`, which
 * decide nothing here. Leaking twin: library-writes-leak.c.
 */

int parse_count(const char *s)
{
    int mode = 0;
    int n = 0;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    if (sscanf(s, "%d", &n) != 1) {
        free(p);
        return -1;
    }
    if (mode != 0)
        return n;
    free(p);
    return n > 5;
}

int read_command(int fd)
{
    int mode = 0;
    char buf[4];
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    if (read(fd, buf, 1) < 0 || buf[0] == 'q') {
        free(p);
        return -1;
    }
    if (mode != 0)
        return 1;
    free(p);
    return 0;
}

long parse_number(const char *s)
{
    int mode = 0;
    char *end = NULL;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    long v = strtol(s, &end, 10);
    if (mode != 0)
        return v;
    free(p);
    return (end != NULL && *end != '\0') ? -1 : v;
}

long file_size(const char *path)
{
    int mode = 0;
    struct stat st;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    if (stat(path, &st) != 0 || st.st_size > 4096) {
        free(p);
        return -1;
    }
    if (mode != 0)
        return 0;
    free(p);
    return (long)st.st_size;
}

int parse_options(int argc, char **argv)
{
    int mode = 0;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    while (getopt(argc, argv, "ab") != -1)
        ;
    if (mode != 0)
        return optind;
    free(p);
    return optind > 5;
}

long checked_number(const char *s)
{
    int mode = 0;
    char *p = malloc(10);
    if (p == NULL)
        return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (mode != 0)
        return v;
    free(p);
    return errno != 0 ? -1 : v;
}
