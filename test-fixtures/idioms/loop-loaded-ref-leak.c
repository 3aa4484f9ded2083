// fixture: idioms/loop-loaded-ref-leak — a table copied in a loop and dropped at the end of each pass
/*
 * Idiom: as loop-loaded-ref-ok.c, but `exts` holds a fresh copy of the
 * table (`exts_copy`) that no path frees. The `continue` loses it (found by
 * the precise walk); so does the end of the loop body, where the precise walk
 * runs out of budget, and the walk that ignores branch conditions must not
 * prove it (it reaches the allocation): unproved, never "proved".
 * Fixed twin: loop-loaded-ref-ok.c.
 */
#include <stdlib.h>
#include <string.h>

struct ext { char *key; unsigned len; int note; };
struct exts { struct ext *exts; unsigned used; };
struct conf { struct exts *auth; struct exts *resp; const struct buf *map; unsigned nmap; int balance; };

struct buf { char *ptr; unsigned used; };

unsigned name_len(const char *s)
{
    unsigned n = 0;
    while (s[n] != 0)
        n++;
    return n;
}

struct exts *exts_copy(const struct exts *src)
{
    struct exts *e = malloc(sizeof *e);
    if (e == NULL)
        abort();
    *e = *src;
    return e;
}

int buf_eq(const struct buf *a, const struct buf *b)
{
    return a->used == b->used && 0 == memcmp(a->ptr, b->ptr, a->used);
}

int match_suffix(const struct buf *keys, unsigned n, const char *s)
{
    unsigned sl = name_len(s);
    for (unsigned i = 0; i < n; ++i) {
        unsigned kl = keys[i].used;
        if (kl <= sl && 0 == memcmp(s + sl - kl, keys[i].ptr, kl))
            return (int)i;
    }
    return -1;
}

struct ext *find_ext(struct conf *c, const char *path, const char *fn, int mode)
{
    struct ext *found = NULL;
    do {
        struct exts *exts;
        if (mode == 0) {
            mode = 2;
            exts = exts_copy(c->auth);
        } else {
            mode = 1;
            exts = c->resp;
        }
        if (exts->used == 0)
            continue;                        // expect: leak exts
        if (c->map) {
            int di = match_suffix(c->map, c->nmap, fn);
            for (unsigned k = 0; di >= 0 && k < exts->used; ++k) {
                struct ext *e = exts->exts + k;
                struct buf key = { e->key, e->len };
                if (buf_eq(&c->map[di], &key)) {
                    found = e;
                    break;
                }
            }
        }
        if (found == NULL) {
            unsigned plen = name_len(path);
            unsigned flen = name_len(fn);
            for (unsigned k = 0; k < exts->used; ++k) {
                struct ext *e = exts->exts + k;
                unsigned len = name_len(e->key);
                if (e->key[0] == '/') {
                    if (len <= plen && memcmp(path, e->key, len) == 0) {
                        found = e;
                        break;
                    }
                } else if (len <= flen && memcmp(fn + flen - len, e->key, len) == 0) {
                    found = e;
                    break;
                }
            }
        }
    } while (found == NULL && mode != 1);   // expect: unproved budget
    return found;
}
