// fixture: idioms/list-insert-head-leak — head insertion that forgets to link the old head
#include <stdlib.h>

/*
 * Idiom: insertion at the head of a singly-linked list, with the bug that
 * the new node's next is set to NULL instead of the old head.  Overwriting
 * l->head then loses the previous list.  The loss is a definite leak on
 * the second push made by list_fill(), whose old head is the node
 * allocated by the first push.  Fixed twin: list-insert-head-ok.c.
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
    n->next = NULL;
    l->head = n;                                // expect: leak l->head
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
