// fixture: build/tailq-loops-ok — TAILQ macros from an in-tree header are loops and stores
#include <stdlib.h>
#include "include/queue.h"

struct item {
	int v;
	TAILQ_ENTRY(item) link;
};
TAILQ_HEAD(item_list, item);

int add_item(struct item_list *l, int v)
{
	struct item *it = malloc(sizeof *it);
	if (it == NULL)
		return -1;
	it->v = v;
	TAILQ_INSERT_TAIL(l, it, link);
	return 0;
}

int sum(struct item_list *l)
{
	struct item *it;
	int n = 0;
	TAILQ_FOREACH(it, l, link) {
		int *tmp = malloc(sizeof *tmp);
		if (tmp == NULL)
			break;
		*tmp = it->v;
		n += *tmp;
		free(tmp);
	}
	return n;
}
