/*
 * Oracle adapter for test-fixtures/paper/dsw-list.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/dsw-list.c"

#define ROUTINE "dsw-list"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(mark, RULE_ZERO)
#define PTR_ARGS(X) X(x)
#define INT_ARGS(X)
#define ENTRIES(X) X(dsw_list)
#define CALL(e, p, k) dsw_list(p[0])
#include "driver.h"
