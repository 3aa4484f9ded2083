// fixture: idioms/constant-returns-leak — a large setup function that can fail, and its caller forgets the buffer
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a call whose result only decides a branch (`if (apply(...) != 0)
 * goto fail`), to a function too large to walk for that: it is applied
 * through what it may write, keeping what its `return` statements say.
 * Here apply_settings returns the number of unknown options, and run
 * returns without freeing `line` when there are some. That count is not a
 * constant, so the summary forgets what `!= 0` needs, and a leak found past
 * a forgotten condition is `unproved (imprecise)`, not reported: the body
 * that was not walked might rule the path out. It must never be `proved`.
 * Fixed twin: constant-returns-ok.c.
 */

struct settings {
    int width;
    int height;
    int depth;
    int verbose;
    int retries;
    int timeout;
    int extra[10];
};

int warnings;
int clamped;

/* Puts every setting back in range; reports nothing and cannot fail. */
static int clamp_settings(struct settings *s)
{
    if (s->width <= 0) {
        s->width = 80;
        clamped++;
    }
    if (s->height <= 0) {
        s->height = 24;
        clamped++;
    }
    if (s->depth <= 0 || s->depth > 32) {
        s->depth = 8;
        clamped++;
    }
    if (s->retries < 0) {
        s->retries = 0;
        clamped++;
    }
    if (s->timeout <= 0) {
        s->timeout = 30;
        clamped++;
    }
    if (s->extra[0] < 0) {
        s->extra[0] = 0;
        clamped++;
    }
    if (s->extra[1] < 0) {
        s->extra[1] = 0;
        clamped++;
    }
    if (s->extra[2] < 0) {
        s->extra[2] = 0;
        clamped++;
    }
    if (s->extra[3] < 0) {
        s->extra[3] = 0;
        clamped++;
    }
    if (s->extra[4] < 0) {
        s->extra[4] = 0;
        clamped++;
    }
    if (s->extra[5] < 0) {
        s->extra[5] = 0;
        clamped++;
    }
    if (s->extra[6] < 0) {
        s->extra[6] = 0;
        clamped++;
    }
    if (s->extra[7] < 0) {
        s->extra[7] = 0;
        clamped++;
    }
    if (s->extra[8] < 0) {
        s->extra[8] = 0;
        clamped++;
    }
    if (s->extra[9] < 0) {
        s->extra[9] = 0;
        clamped++;
    }
    return 0;
}

static int apply_settings(struct settings *s, int argc, char **argv)
{
    int unknown = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        int opt = argv[i][1];
        int value = atoi(argv[i + 1]);
        switch (opt) {
        case 'w':
            s->width = value;
            break;
        case 'h':
            s->height = value;
            break;
        case 'd':
            s->depth = value;
            break;
        case 'r':
            s->retries = value;
            break;
        case 't':
            s->timeout = value;
            break;
        case 'v':
            s->verbose = value;
            break;
        case 'a':
            s->extra[0] = value;
            if (s->extra[0] > 100) {
                s->extra[0] = 100;
                clamped++;
            }
            break;
        case 'b':
            s->extra[1] = value;
            if (s->extra[1] > 100) {
                s->extra[1] = 100;
                clamped++;
            }
            break;
        case 'c':
            s->extra[2] = value;
            if (s->extra[2] > 100) {
                s->extra[2] = 100;
                clamped++;
            }
            break;
        case 'e':
            s->extra[3] = value;
            if (s->extra[3] > 100) {
                s->extra[3] = 100;
                clamped++;
            }
            break;
        case 'f':
            s->extra[4] = value;
            if (s->extra[4] > 100) {
                s->extra[4] = 100;
                clamped++;
            }
            break;
        case 'g':
            s->extra[5] = value;
            if (s->extra[5] > 100) {
                s->extra[5] = 100;
                clamped++;
            }
            break;
        case 'i':
            s->extra[6] = value;
            if (s->extra[6] > 100) {
                s->extra[6] = 100;
                clamped++;
            }
            break;
        case 'j':
            s->extra[7] = value;
            if (s->extra[7] > 100) {
                s->extra[7] = 100;
                clamped++;
            }
            break;
        case 'k':
            s->extra[8] = value;
            if (s->extra[8] > 100) {
                s->extra[8] = 100;
                clamped++;
            }
            break;
        case 'l':
            s->extra[9] = value;
            if (s->extra[9] > 100) {
                s->extra[9] = 100;
                clamped++;
            }
            break;
        default:
            fprintf(stderr, "ignoring -%c\n", opt);
            warnings++;
            unknown++;
            break;
        }
    }
    clamp_settings(s);
    return unknown;
}

int run(int argc, char **argv)
{
    struct settings s = {0};
    char *line = malloc(128);
    if (line == NULL)
        return -1;
    if (apply_settings(&s, argc, argv) != 0)
        return -1;                              // expect: unproved imprecise
    snprintf(line, 128, "%dx%dx%d", s.width, s.height, s.depth);
    puts(line);
    free(line);
    return 0;
}

/* The same setup without options: clamping cannot fail, so the early return
 * that would drop `line` is never taken. */
int run_defaults(void)
{
    struct settings s = {0};
    char *line = malloc(128);
    if (line == NULL)
        return -1;
    if (clamp_settings(&s) != 0)
        return -1;
    snprintf(line, 128, "%dx%dx%d", s.width, s.height, s.depth);
    puts(line);
    free(line);
    return 0;
}
