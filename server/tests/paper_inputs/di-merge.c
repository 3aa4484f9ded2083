/*
 * Oracle adapter for test-fixtures/paper/di-merge.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/di-merge.c"

#define ROUTINE "di-merge"
#define NODE DList
#define SHAPE SHAPE_DLIST
#define PTR_FIELDS(X) X(next) X(prev)
#define INT_FIELDS(X) X(data, RULE_KEY)
#define PTR_ARGS(X) X(a) X(b)
#define INT_ARGS(X)
#define ENTRIES(X) X(dlist_merge)
#define CALL(e, p, k) dlist_merge(p[0], p[1])
#include "driver.h"
