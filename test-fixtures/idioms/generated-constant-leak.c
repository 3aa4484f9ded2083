// fixture: idioms/generated-constant-leak — a node freed before it is stamped with its magic number
#include <stdlib.h>
#include <string.h>
#include "node_err.h" /* generated at build time (NODE_MAGIC): not in the tree */

/*
 * Idiom: objects stamped with a magic number that their destructor checks
 * before freeing (e2fsprogs' profile nodes, com_err tables). The number is
 * defined in a header generated at build time, so the identifier is declared
 * nowhere the analysis can see: compared with an integer field it is still a
 * number, the same one each time it is read. Here the node is stamped only
 * once both strings are copied, so when a copy fails node_free refuses the
 * unstamped node and it leaks. Fixed twin: generated-constant-ok.c.
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
    n->name = strdup(name);
    if (n->name == NULL) {
        node_free(n);
        return -1;                              // expect: leak n
    }
    n->value = strdup(value);
    if (n->value == NULL) {
        node_free(n);
        return -1;                              // expect: leak n
    }
    n->magic = NODE_MAGIC;
    *out = n;                                   // expect: unproved input-dependent
    return 0;
}
