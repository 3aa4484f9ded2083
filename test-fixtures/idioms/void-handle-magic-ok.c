// fixture: idioms/void-handle-magic-ok — a handle kept as `void *` is checked by its struct's magic number before it is freed
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

/* The handle is returned as `void *`: the caller never sees its type. */
int iter_create(void **ret)
{
	struct iter *it = malloc(sizeof *it);
	if (it == NULL)
		return 12;
	it->magic = ITER_MAGIC;
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
 * `iter_create` set the magic number, so `iter_free` frees the handle on every path: its
 * check fails only for a handle `iter_create` did not make. The check reads `it->magic`
 * through the `void *` the caller holds; read as a member of untyped memory, any write on the
 * way back (`l->n = n`) could have changed it.
 */
int count_names(int n)
{
	void *state;
	struct list l;
	int r;

	if ((r = iter_create(&state)))
		return r;
	if ((r = list_init(&l, n)))
		goto out;
	free(l.v);
out:
	iter_free(&state);
	return r; // expect: proved
}
