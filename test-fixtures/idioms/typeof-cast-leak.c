// fixture: idioms/typeof-cast-leak — a cast to __typeof (uthash's DECLTYPE) is a cast, not a call: the block is lost on the duplicate path
#include <stdlib.h>

/* uthash's DECLTYPE and DECLTYPE_ASSIGN, as uthash.h defines them for GCC and Clang. */
#define DECLTYPE(x) (__typeof(x))
#define DECLTYPE_ASSIGN(dst, src)                                               \
	do {                                                                    \
		(dst) = DECLTYPE(dst)(src);                                     \
	} while (0)

struct item {
	int id;
	void *next; /* untyped links, as uthash's handles */
};

struct table {
	void *first;
};

/* Adds an item under `id`; a duplicate id is refused. */
int table_add(struct table *t, int id)
{
	struct item *it;
	struct item *cur;

	DECLTYPE_ASSIGN(it, malloc(sizeof(struct item)));
	if (it == NULL)
		return -1;
	it->id = id;
	cur = DECLTYPE(cur)(t->first);
	while (cur != NULL) {
		if (cur->id == id)
			return 0; // expect: leak it
		DECLTYPE_ASSIGN(cur, cur->next);
	}
	it->next = t->first;
	t->first = it;
	return 1;
}
