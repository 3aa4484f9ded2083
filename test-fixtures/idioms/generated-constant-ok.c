// fixture: idioms/generated-constant-ok — a destructor that checks a magic number from a generated header
#include <stdlib.h>
#include <string.h>
#include "node_err.h" /* generated at build time (NODE_MAGIC): not in the tree */

/*
 * Idiom: objects stamped with a magic number that their destructor checks
 * before freeing (e2fsprogs' profile nodes, com_err tables). The number is
 * defined in a header generated at build time, so the identifier is declared
 * nowhere the analysis can see: compared with an integer field it is still a
 * number, the same one each time it is read. Here the node is stamped before
 * anything can fail, so node_free always frees it.
 * Leaking twin: generated-constant-leak.c.
 */

struct node {
    long magic;
    char *name;
    char *value;
};

void node_free(struct node *n)
{
    if (n->magic != NODE_MAGIC)
        return;
    free(n->name);
    free(n->value);
    n->magic = 0;
    free(n);
}

long node_create(const char *name, const char *value, struct node **out)
{
    struct node *n = calloc(1, sizeof *n);
    if (n == NULL)
        return -1;
    n->magic = NODE_MAGIC;
    n->name = strdup(name);
    if (n->name == NULL) {
        node_free(n);
        return -1;
    }
    n->value = strdup(value);
    if (n->value == NULL) {
        node_free(n);
        return -1;
    }
    *out = n;                                   // expect: unproved input-dependent
    return 0;
}
