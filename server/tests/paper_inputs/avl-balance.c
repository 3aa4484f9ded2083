/*
 * Oracle adapter for test-fixtures/paper/avl-balance.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/avl-balance.c"

#define ROUTINE "avl-balance"
#define NODE Avl
#define SHAPE SHAPE_TREE
#define PTR_FIELDS(X) X(left) X(right)
#define INT_FIELDS(X) X(key, RULE_KEY) X(height, RULE_HEIGHT)
#define PTR_ARGS(X) X(n)
#define INT_ARGS(X)
#define ENTRIES(X) X(balance)
#define CALL(e, p, k) balance(p[0])
#include "driver.h"
