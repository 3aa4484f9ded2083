/*
 * Oracle adapter for test-fixtures/paper/avl-insert.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/avl-insert.c"

#define ROUTINE "avl-insert"
#define NODE Avl
#define SHAPE SHAPE_TREE
#define PTR_FIELDS(X) X(left) X(right)
#define INT_FIELDS(X) X(key, RULE_KEY) X(height, RULE_HEIGHT)
#define PTR_ARGS(X) X(root)
#define INT_ARGS(X) X(key)
#define ENTRIES(X) X(avl_insert)
#define CALL(e, p, k) avl_insert(p[0], k[0])
#include "driver.h"
