// fixture: build/macro-struct-leak — a store into a macro-declared array that may be full
#include <stdlib.h>
#include "include/array.h"

/*
 * As in macro-struct-ok.c, but the growth returns without growing when
 * realloc fails: the store is skipped and the item is lost.
 */

struct item {
	int v;
};

ARRAY_HEAD(ItemList, struct item *);

static void list_grow(struct ItemList *l)
{
	struct item **e = realloc(l->entries, (l->size + 1) * sizeof *e);
	if (e == NULL)
		return;
	l->entries = e;
	l->capacity = l->size + 1;
}

struct ItemList items;

int item_add(int v)
{
	struct item *it = malloc(sizeof *it);
	if (it == NULL)
		return -1;
	it->v = v;
	if (items.capacity <= items.size)
		list_grow(&items);
	ARRAY_ADD_NORESERVE(&items, it);
	return 0;	// expect: leak it
}
