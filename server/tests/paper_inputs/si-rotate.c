/*
 * Oracle adapter for test-fixtures/paper/si-rotate.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 * (`last` is not kept: the routine never stores it).
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/si-rotate.c"

#define ROUTINE "si-rotate"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(x) X(last)
#define INT_ARGS(X)
#define ENTRIES(X) X(list_rotate)
#define CALL(e, p, k) list_rotate(p[0], p[1])
#include "driver.h"
