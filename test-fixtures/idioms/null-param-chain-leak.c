// fixture: idioms/null-param-chain-leak — a quiet dump hands down a NULL list, and every label is lost
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: as in null-param-chain-ok.c, but a quiet dump passes no list
 * (`verbose ? &links : NULL`) down the same chain of dump functions:
 * `list_insert` refuses the NULL list and `add_link` drops the label it
 * just made, once per link.
 * Fixed twin: null-param-chain-ok.c.
 */

struct link {
    char *label;
    struct link *next;
};

struct links {
    struct link *head;
    int count;
};

struct box {
    const char *name;
    int kind;
    struct box *child;
    struct box *next;
};

static struct link *list_insert(struct links *h, char *label)
{
    struct link *l;

    if (h == NULL)
        return NULL;
    l = malloc(sizeof(*l));
    if (l == NULL)
        abort();
    l->label = label;
    l->next = h->head;
    h->head = l;
    h->count++;
    return l;
}

static void add_link(struct links *links, const struct box *from, const char *what)
{
    char buf[256];

    snprintf(buf, sizeof(buf), "%s -> %s", from->name, what);
    list_insert(links, strdup(buf));    // expect: leak strdup()
}

static void dump_leaf(const struct box *b, struct links *links)
{
    if (b->kind == 1)
        add_link(links, b, "leaf");
    else if (b->kind == 2)
        add_link(links, b, "leaf2");
}

static void dump_account(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "account->name");
    if (b->kind > 1)
        add_link(links, b, "account->owner");
    if (b->kind > 2)
        add_link(links, b, "account->parent");
    if (b->child)
        dump_leaf(b->child, links);
}

static void dump_mailbox(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "mailbox->name");
    if (b->kind > 1)
        add_link(links, b, "mailbox->owner");
    if (b->kind > 2)
        add_link(links, b, "mailbox->parent");
    if (b->kind > 3)
        add_link(links, b, "mailbox->peer");
    if (b->child)
        dump_account(b->child, links);
}

static void dump_email(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "email->name");
    if (b->kind > 1)
        add_link(links, b, "email->owner");
    if (b->kind > 2)
        add_link(links, b, "email->parent");
    if (b->kind > 3)
        add_link(links, b, "email->peer");
    if (b->kind > 4)
        add_link(links, b, "email->data");
    if (b->child)
        dump_mailbox(b->child, links);
    dump_account(b->next, links);
}

static void dump_envelope(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "envelope->name");
    if (b->kind > 1)
        add_link(links, b, "envelope->owner");
    if (b->kind > 2)
        add_link(links, b, "envelope->parent");
    if (b->kind > 3)
        add_link(links, b, "envelope->peer");
    if (b->kind > 4)
        add_link(links, b, "envelope->data");
    if (b->kind > 5)
        add_link(links, b, "envelope->cache");
    if (b->child)
        dump_email(b->child, links);
    dump_mailbox(b->next, links);
}

static void dump_body(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "body->name");
    if (b->kind > 1)
        add_link(links, b, "body->owner");
    if (b->kind > 2)
        add_link(links, b, "body->parent");
    if (b->child)
        dump_envelope(b->child, links);
    dump_email(b->next, links);
}

static void dump_header(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "header->name");
    if (b->kind > 1)
        add_link(links, b, "header->owner");
    if (b->kind > 2)
        add_link(links, b, "header->parent");
    if (b->kind > 3)
        add_link(links, b, "header->peer");
    if (b->child)
        dump_body(b->child, links);
    dump_envelope(b->next, links);
}

static void dump_thread(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "thread->name");
    if (b->kind > 1)
        add_link(links, b, "thread->owner");
    if (b->kind > 2)
        add_link(links, b, "thread->parent");
    if (b->kind > 3)
        add_link(links, b, "thread->peer");
    if (b->kind > 4)
        add_link(links, b, "thread->data");
    if (b->child)
        dump_header(b->child, links);
    dump_body(b->next, links);
}

static void dump_connection(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "connection->name");
    if (b->kind > 1)
        add_link(links, b, "connection->owner");
    if (b->kind > 2)
        add_link(links, b, "connection->parent");
    if (b->kind > 3)
        add_link(links, b, "connection->peer");
    if (b->kind > 4)
        add_link(links, b, "connection->data");
    if (b->kind > 5)
        add_link(links, b, "connection->cache");
    if (b->child)
        dump_thread(b->child, links);
    dump_header(b->next, links);
}

static void dump_server(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "server->name");
    if (b->kind > 1)
        add_link(links, b, "server->owner");
    if (b->kind > 2)
        add_link(links, b, "server->parent");
    if (b->child)
        dump_connection(b->child, links);
    dump_thread(b->next, links);
}

static void dump_folder(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "folder->name");
    if (b->kind > 1)
        add_link(links, b, "folder->owner");
    if (b->kind > 2)
        add_link(links, b, "folder->parent");
    if (b->kind > 3)
        add_link(links, b, "folder->peer");
    if (b->child)
        dump_server(b->child, links);
    dump_connection(b->next, links);
}

static void dump_message(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "message->name");
    if (b->kind > 1)
        add_link(links, b, "message->owner");
    if (b->kind > 2)
        add_link(links, b, "message->parent");
    if (b->kind > 3)
        add_link(links, b, "message->peer");
    if (b->kind > 4)
        add_link(links, b, "message->data");
    if (b->child)
        dump_folder(b->child, links);
    dump_server(b->next, links);
}

static void dump_attachment(const struct box *b, struct links *links)
{
    if (!b)
        return;
    if (b->kind > 0)
        add_link(links, b, "attachment->name");
    if (b->kind > 1)
        add_link(links, b, "attachment->owner");
    if (b->kind > 2)
        add_link(links, b, "attachment->parent");
    if (b->kind > 3)
        add_link(links, b, "attachment->peer");
    if (b->kind > 4)
        add_link(links, b, "attachment->data");
    if (b->kind > 5)
        add_link(links, b, "attachment->cache");
    if (b->child)
        dump_message(b->child, links);
    dump_folder(b->next, links);
}

static void dump_tree(const struct box *root, struct links *links)
{
    for (const struct box *b = root; b; b = b->next) {
        dump_account(b, links);
        dump_mailbox(b, links);
        dump_email(b, links);
        dump_envelope(b, links);
        dump_body(b, links);
        dump_header(b, links);
        dump_thread(b, links);
        dump_connection(b, links);
        dump_server(b, links);
        dump_folder(b, links);
        dump_message(b, links);
        dump_attachment(b, links);
    }
}

static void links_print(struct links *links)
{
    while (links->head) {
        struct link *l = links->head;

        links->head = l->next;
        puts(l->label);
        free(l->label);
        free(l);
    }
}

void dump_graph(const struct box *root, int verbose)
{
    struct links links = {NULL, 0};

    /* A quiet dump passes no list: `add_link` makes each label and drops it. */
    dump_tree(root, verbose ? &links : NULL);
    links_print(&links);
}

int main(void)
{
    struct box leaf = {"leaf", 1, NULL, NULL};
    struct box root = {"root", 3, &leaf, NULL};

    dump_graph(&root, 0);
    return 0;
}
