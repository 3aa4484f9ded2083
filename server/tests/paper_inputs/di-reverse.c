/*
 * Oracle adapter for test-fixtures/paper/di-reverse.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/di-reverse.c"

#define ROUTINE "di-reverse"
#define NODE DList
#define SHAPE SHAPE_DLIST
#define PTR_FIELDS(X) X(next) X(prev)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(x)
#define INT_ARGS(X)
#define ENTRIES(X) X(dlist_reverse)
#define CALL(e, p, k) dlist_reverse(p[0])
#include "driver.h"
