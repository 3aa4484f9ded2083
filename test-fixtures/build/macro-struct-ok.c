// fixture: build/macro-struct-ok — a struct declared by a macro has the members of its expansion
#include <stdlib.h>
#include "include/array.h"

/*
 * `ARRAY_HEAD(ItemList, struct item *);` declares `struct ItemList` with
 * `size`, `capacity` and `entries`. The add grows the array when it is full
 * (aborting on failure) and then stores only if `capacity > size`: decided
 * only when the members' integer types are known.
 */

struct item {
	int v;
};

ARRAY_HEAD(ItemList, struct item *);

static void list_grow(struct ItemList *l)
{
	struct item **e = realloc(l->entries, (l->size + 1) * sizeof *e);
	if (e == NULL)
		abort();
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
	return 0;
}
