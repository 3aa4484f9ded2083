// fixture: idioms/intrusive-list-memalign-ok — a node whose pointer was filled in through its address is kept by the list
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a node allocated with `posix_memalign(&node, …)` (so the local's
 * address is taken) and linked into the caller's intrusive list by its
 * embedded `struct list_head`, with the name stored right behind the
 * struct. The list holds `&con->entry`, a pointer into the node's block,
 * and that keeps the block: losing the local at the return loses nothing.
 * Leaking twin: intrusive-list-memalign-leak.c.
 */

struct list_head {
    struct list_head *next, *prev;
};

static void list_link(struct list_head *add, struct list_head *prev, struct list_head *next)
{
    next->prev = add;
    add->next = next;
    add->prev = prev;
    prev->next = add;
}

static void list_add_tail(struct list_head *add, struct list_head *head)
{
    list_link(add, head->prev, head);
}

struct console {
    struct list_head entry;
    char *tty;
    int id;
};

int console_append(struct list_head *consoles, const char *name, int id)
{
    struct console *con;

    if (posix_memalign((void **)&con, sizeof(void *), sizeof(*con) + strlen(name) + 1) != 0)
        return -1;
    con->entry.next = con->entry.prev = &con->entry;
    list_add_tail(&con->entry, consoles);
    con->tty = (char *)(con + 1);
    strcpy(con->tty, name);
    con->id = id;
    return 0;
}
