// fixture: idioms/list-delete-ok — unlinked list node is freed before returning
#include <stdlib.h>

/*
 * Idiom: delete by key from a singly-linked list (trailing prev pointer,
 * head passed by address).  The unlinked node is freed.  main() builds the
 * list, removes one key and frees the rest, so nothing is left over.
 * Leaking twin: list-delete-leak.c.
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
            free(cur);
            return 1;
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
