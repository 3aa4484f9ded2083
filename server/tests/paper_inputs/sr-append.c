/*
 * Oracle adapter for test-fixtures/paper/sr-append.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/sr-append.c"

#define ROUTINE "sr-append"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(a) X(b)
#define INT_ARGS(X)
#define ENTRIES(X) X(list_append)
#define CALL(e, p, k) list_append(p[0], p[1])
#include "driver.h"
