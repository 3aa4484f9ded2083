/*
 * Oracle adapter for test-fixtures/paper/si-create.c; the driver and the meaning of
 * these macros are in driver.h.  No pointer argument: every input node is freed before the call.
 * Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/si-create.c"

#define ROUTINE "si-create"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X)
#define INT_ARGS(X) X(n)
#define ENTRIES(X) X(list_create)
#define CALL(e, p, k) list_create(k[0])
#include "driver.h"
