/*
 * Oracle adapter for test-fixtures/paper/avl-rotate.c; the driver and the meaning of
 * these macros are in driver.h.  Both functions have no caller: each trial calls one of them.
 * Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/avl-rotate.c"

#define ROUTINE "avl-rotate"
#define NODE Avl
#define SHAPE SHAPE_TREE
#define PTR_FIELDS(X) X(left) X(right)
#define INT_FIELDS(X) X(key, RULE_KEY) X(height, RULE_HEIGHT)
#define PTR_ARGS(X) X(n)
#define INT_ARGS(X)
#define ENTRIES(X) X(rotate_right) X(rotate_left)
#define CALL(e, p, k) ((e) == 0 ? rotate_right(p[0]) : rotate_left(p[0]))
#include "driver.h"
