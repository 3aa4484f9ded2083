// fixture: idioms/list-cursor-ok — a list built with a cursor: `p->next = alloc; p = p->next;`
#include <stdlib.h>

/*
 * Idiom: a list is built in a loop with a cursor `p`: each new node is
 * hung on the current node's `next`, then the cursor moves to it
 * (`p->next = malloc(…); p = p->next;`, util-linux's lsipc and tunelp
 * build their lists so). The node the cursor leaves is still its
 * predecessor's `next` (or `*head`), so nothing leaks at `p = p->next`, at
 * the early returns or at the end.
 *
 * Backwards from `p = p->next`, the node left behind was itself the new
 * node of the previous round, and the only way for the fact to keep it
 * unreferenced is that its own `next` field held it when it was allocated:
 * a block nobody has stored into holds no reference (`malloc`'s
 * indeterminate bytes, `calloc`'s zeros), which refutes it.
 * Leaking twin: list-cursor-leak.c.
 */

struct node {
    struct node *next;
    int value;
};

int build_malloc(struct node **head, int count)
{
    struct node *p;
    int i;

    p = *head = malloc(sizeof(struct node));
    if (!p)
        return -1;
    p->next = NULL;
    p->value = 0;
    for (i = 1; i < count; i++) {
        p->next = malloc(sizeof(struct node));
        if (!p->next)
            return -1;
        p = p->next;
        p->next = NULL;
        p->value = i;
    }
    return i;
}

int build_calloc(struct node **head, int count)
{
    struct node *p;
    int i = 0;

    p = *head = calloc(1, sizeof(struct node));
    if (!p)
        return -1;
    while (i < count) {
        p->value = i;
        p->next = calloc(1, sizeof(struct node));
        if (!p->next)
            return -1;
        p = p->next;
        i++;
    }
    return i;
}

void free_list(struct node *n)
{
    while (n) {
        struct node *next = n->next;
        free(n);
        n = next;
    }
}

int main(void)
{
    struct node *a = NULL, *b = NULL;

    build_malloc(&a, 3);
    build_calloc(&b, 3);
    free_list(a);
    free_list(b);
    return 0;
}
