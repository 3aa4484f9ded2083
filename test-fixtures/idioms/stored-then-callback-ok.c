// fixture: idioms/stored-then-callback-ok — a block stored in its owner, then the owner handed to a callback
#include <stdlib.h>

/*
 * Idiom: grow a table owned by a struct (realloc, store the new block back
 * into the struct right away), then call through a function pointer of the
 * struct's methods with the struct.  Whatever the callback does, the block is
 * the struct's: returning on the callback's failure loses nothing.  Only a
 * callback that overwrote `db->locks` without freeing it could make the block
 * unreachable, and its body is not known here, so no leak may be reported.
 * Leaking twin: stored-then-callback-leak.c.
 */

struct lock_rec {
    int list;
    int count;
};

struct db;

struct db_ops {
    int (*lock)(struct db *db, int list);
};

struct db {
    struct lock_rec *locks;
    int nlocks;
    const struct db_ops *ops;
};

int db_lock(struct db *db, int list)
{
    struct lock_rec *grown;

    grown = realloc(db->locks, sizeof(*grown) * (db->nlocks + 1));
    if (grown == NULL)
        return -1;
    db->locks = grown;
    if (db->ops->lock(db, list) != 0)
        return -1;                              // expect: unproved escaped
    db->locks[db->nlocks].list = list;
    db->locks[db->nlocks].count = 1;
    db->nlocks++;
    return 0;                                   // expect: unproved escaped
}
