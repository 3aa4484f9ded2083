// fixture: idioms/list-delete-leak — list delete unlinks the node but never frees it
#include <stdlib.h>

/*
 * Idiom: delete by key from a singly-linked list (trailing prev pointer,
 * head passed by address), with the bug that the unlinked node is not
 * freed: after the unlink `cur` is its only reference, lost at the return.
 * main() builds the list (so the node comes from a known malloc), removes
 * one key and frees the rest.  Fixed twin: list-delete-ok.c.
 */

struct node { int key; struct node *next; };

static int push(struct node **headp, int key)
{
    struct node *n = malloc(sizeof *n);

    if (n == NULL)
        return -1;
    n->key = key;
    n->next = *headp;
    *headp = n;
    return 0;
}

static int remove_key(struct node **headp, int key)
{
    struct node *prev = NULL;
    struct node *cur = *headp;

    while (cur != NULL) {
        if (cur->key == key) {
            if (prev == NULL)
                *headp = cur->next;
            else
                prev->next = cur->next;
            return 1;                         // expect: leak cur
        }
        prev = cur;
        cur = cur->next;
    }
    return 0;
}

int main(void)
{
    struct node *head = NULL;
    int i;
    for (i = 0; i < 4; i++)
        if (push(&head, i) < 0)
            break;
    remove_key(&head, 2);
    while (head != NULL) {
        struct node *next = head->next;
        free(head);
        head = next;
    }
    return 0;
}
