/*
 * Oracle adapter for test-fixtures/paper/dsw-tree.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/dsw-tree.c"

#define ROUTINE "dsw-tree"
#define NODE Tree
#define SHAPE SHAPE_TREE
#define PTR_FIELDS(X) X(left) X(right)
#define INT_FIELDS(X) X(mark, RULE_ZERO) X(flag, RULE_ZERO)
#define PTR_ARGS(X) X(t)
#define INT_ARGS(X)
#define ENTRIES(X) X(dsw_tree)
#define CALL(e, p, k) dsw_tree(p[0])
#include "driver.h"
