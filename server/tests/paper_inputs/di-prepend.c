/*
 * Oracle adapter for test-fixtures/paper/di-prepend.c; the driver and the meaning of
 * these macros are in driver.h.  Roots after the call: the result only.
 * (the new node, or `list` when malloc fails; `list` is linked behind the new node).
 */
#include "prelude.h"
#include "../../../test-fixtures/paper/di-prepend.c"

#define ROUTINE "di-prepend"
#define NODE DList
#define SHAPE SHAPE_DLIST
#define PTR_FIELDS(X) X(next) X(prev)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(list)
#define INT_ARGS(X) X(data)
#define ENTRIES(X) X(dlist_prepend)
#define CALL(e, p, k) dlist_prepend(p[0], k[0])
#include "driver.h"
