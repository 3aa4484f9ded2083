// fixture: idioms/loop-loaded-ref-ok — a table pointer loaded from a field, searched in a loop whose branches split the walk
/*
 * Idiom (lighttpd's gw_check_extension): each pass of a do/while loads a table
 * pointer from the configuration (`exts = c->auth`), searches it with loops
 * whose conditions read the results of small helpers, and lets `exts` go out
 * of scope. The block is still referenced from `c->auth`, which nothing
 * writes: leak-free. The precise backward walk splits its facts on every
 * branch and helper result and runs out of budget; the walk that ignores
 * branch conditions meets `exts = c->auth` on every path and proves it.
 * Leaking twin: loop-loaded-ref-leak.c.
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
            exts = c->auth;
        } else {
            mode = 1;
            exts = c->resp;
        }
        if (exts->used == 0)
            continue;
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
    } while (found == NULL && mode != 1);
    return found;
}
