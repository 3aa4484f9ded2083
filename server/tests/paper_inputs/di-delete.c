/*
 * Oracle adapter for test-fixtures/paper/di-delete.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/di-delete.c"

#define ROUTINE "di-delete"
#define NODE DList
#define SHAPE SHAPE_DLIST
#define PTR_FIELDS(X) X(next) X(prev)
#define INT_FIELDS(X) X(data, RULE_KEY)
#define PTR_ARGS(X) X(list)
#define INT_ARGS(X) X(key)
#define ENTRIES(X) X(dlist_delete)
#define CALL(e, p, k) dlist_delete(p[0], k[0])
#include "driver.h"
