// fixture: idioms/stored-then-callback-leak — the callback's failure returns before the block is stored
#include <stdlib.h>

/*
 * Idiom: as in stored-then-callback-ok.c, but the new table is stored into
 * the struct only after the callback succeeded: when it fails, the function
 * returns and the freshly allocated table is lost, whatever the callback did.
 * Fixed twin: stored-then-callback-ok.c.
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
    struct lock_rec *fresh;

    fresh = calloc((size_t)db->nlocks + 1, sizeof(*fresh));
    if (fresh == NULL)
        return -1;
    if (db->ops->lock(db, list) != 0)
        return -1;                              // expect: leak fresh
    free(db->locks);
    db->locks = fresh;
    db->locks[db->nlocks].list = list;
    db->locks[db->nlocks].count = 1;
    db->nlocks++;
    return 0;
}
