// fixture: idioms/library-null-leak — library calls that return NULL (fopen fails, strchr finds nothing) on the way out
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a C library call that returns NULL when it fails or finds nothing:
 * `fopen`, `getenv`, `opendir` (library-owned memory, or NULL) and `strchr`,
 * `strstr`, `strtok` (a pointer into their first argument, or NULL). Both
 * outcomes are possible, so an early return on NULL that forgets a block is a
 * leak. Here read_config returns 0 when fopen fails and load drops `path`;
 * split drops `copy` when there is no ':'. Fixed twin: library-null-ok.c.
 */

static int read_config(const char *name)
{
    FILE *fd = fopen(name, "r");
    if (fd == NULL)
        return 0;
    fclose(fd);
    return 1;
}

int load(const char *dir)
{
    char *path = malloc(strlen(dir) + 16);
    if (path == NULL)
        return -1;
    strcpy(path, dir);
    strcat(path, "/config");
    if (read_config(path) == 0)
        return -1;                              // expect: leak path
    free(path);
    return 0;
}

int split(const char *spec, int *port)
{
    char *copy = strdup(spec);
    if (copy == NULL)
        return -1;
    char *colon = strchr(copy, ':');
    if (colon == NULL)
        return -1;                              // expect: leak copy
    *colon = '\0';
    *port = atoi(colon + 1);
    free(copy);
    return 0;
}
