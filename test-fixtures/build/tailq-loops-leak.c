// fixture: build/tailq-loops-leak — a block-local lost on each turn of a TAILQ_FOREACH loop
#include <stdlib.h>
#include "include/queue.h"

struct item {
	int v;
	TAILQ_ENTRY(item) link;
};
TAILQ_HEAD(item_list, item);

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
	} // expect: leak tmp
	return n;
}
