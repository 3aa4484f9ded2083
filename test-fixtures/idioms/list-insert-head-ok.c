// fixture: idioms/list-insert-head-ok — push a node at the head of a list, linking the old head
#include <stdlib.h>

/*
 * Idiom: insertion at the head of a singly-linked list.  The old head is
 * saved in the new node's next field before the head pointer is
 * overwritten, and the new node is owned by the list afterwards.
 * Leaking twin: list-insert-head-leak.c.
 */

struct node {
    int value;
    struct node *next;
};

struct list {
    struct node *head;
    int len;
};

static int list_push_front(struct list *l, int value)
{
    struct node *n = malloc(sizeof *n);

    if (n == NULL)
        return -1;
    n->value = value;
    n->next = l->head;
    l->head = n;
    l->len++;
    return 0;
}

int list_fill(struct list *l, int count)
{
    int i;

    for (i = 0; i < count; i++)
        if (list_push_front(l, i) < 0)
            return -1;
    return 0;
}
