/*
 * Oracle adapter for test-fixtures/paper/sr-rev-leak.c; the driver and the meaning of
 * these macros are in driver.h.  The fixture's main (it builds a 4-node list) is renamed
 * fixture_main and not used: the trials call list_reverse, the routine it exercises.
 * Roots after the call: the result only.
 */
#include "prelude.h"
#define main fixture_main
#include "../../../test-fixtures/paper/sr-rev-leak.c"
#undef main
#define ROUTINE "sr-rev-leak"
#define NODE List
#define SHAPE SHAPE_LIST
#define PTR_FIELDS(X) X(next)
#define INT_FIELDS(X) X(data, RULE_RANDOM)
#define PTR_ARGS(X) X(x)
#define INT_ARGS(X)
#define ENTRIES(X) X(list_reverse)
#define CALL(e, p, k) list_reverse(p[0])
#include "driver.h"
