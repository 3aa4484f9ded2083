// fixture: idioms/list-cursor-leak — a list built with a cursor that moves to a new node without linking it
#include <stdlib.h>

/*
 * Idiom: a list is built in a loop with a cursor `p`: each new node is
 * hung on the current node's `next`, then the cursor moves to it. Here the
 * loop forgets the link: the cursor moves to the new node while nothing
 * else holds the node it leaves, so every node but the head is lost at
 * `p = n`, and the last one at either return. The calloc builder links
 * each node but allocates it twice, losing the first at the second store.
 * The nodes come from `malloc` (indeterminate contents) and `calloc` (zero
 * bytes) in the two builders.
 * Fixed twin: list-cursor-ok.c.
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
        struct node *n = malloc(sizeof(struct node));
        if (!n)
            return -1; // expect: leak p
        n->next = NULL;
        n->value = i;
        p = n; // expect: leak p
    }
    return i; // expect: leak p
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
        p->next = calloc(1, sizeof(struct node)); // expect: leak p->next
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
