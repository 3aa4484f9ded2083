/*
 * Oracle adapter for test-fixtures/paper/sr-reverse.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/sr-reverse.c"

#define ROUTINE "sr-reverse"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(x)
#define INT_ARGS(X)
#define ENTRIES(X) X(list_reverse)
#define CALL(e, p, k) list_reverse(p[0])
#include "driver.h"
