// fixture: idioms/void-handle-magic-leak — a handle whose magic number is not set is not freed by the function that checks it
#include <stdlib.h>

#define ITER_MAGIC 0x2b7a11

struct iter {
	int magic;
	int pos;
};

struct list {
	int n;
	char **v;
};

/* The handle is returned as `void *`; it is marked ready only on request. */
int iter_create(void **ret, int ready)
{
	struct iter *it = malloc(sizeof *it);
	if (it == NULL)
		return 12;
	it->magic = ready ? ITER_MAGIC : 0;
	it->pos = 0;
	*ret = it;
	return 0;
}

/* Frees only what carries the magic number; `it = *p` converts the `void *` back. */
void iter_free(void **p)
{
	struct iter *it;

	if (p == NULL)
		return;
	it = *p;
	if (it == NULL || it->magic != ITER_MAGIC)
		return;
	free(it);
	*p = NULL;
}

int list_init(struct list *l, int n)
{
	l->n = n;
	l->v = calloc(n, sizeof *l->v);
	if (l->v == NULL)
		return 12;
	return 0;
}

/*
 * As in the -ok twin, but `iter_create` sets the magic number only when `ready`: otherwise
 * `iter_free` returns without freeing the handle, and the last reference goes with `state`.
 */
int count_names(int n, int ready)
{
	void *state;
	struct list l;
	int r;

	if ((r = iter_create(&state, ready)))
		return r;
	if ((r = list_init(&l, n)))
		goto out;
	free(l.v);
out:
	iter_free(&state);
	return r; // expect: leak state
}
