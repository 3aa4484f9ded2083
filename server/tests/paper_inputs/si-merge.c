/*
 * Oracle adapter for test-fixtures/paper/si-merge.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/si-merge.c"

#define ROUTINE "si-merge"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_KEY)
#define PTR_ARGS(X) X(a) X(b)
#define INT_ARGS(X)
#define ENTRIES(X) X(list_merge)
#define CALL(e, p, k) list_merge(p[0], p[1])
#include "driver.h"
