/*
 * Oracle adapter for test-fixtures/paper/si-insert.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/si-insert.c"

#define ROUTINE "si-insert"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_KEY)
#define PTR_ARGS(X) X(x)
#define INT_ARGS(X) X(key)
#define ENTRIES(X) X(list_insert)
#define CALL(e, p, k) list_insert(p[0], k[0])
#include "driver.h"
