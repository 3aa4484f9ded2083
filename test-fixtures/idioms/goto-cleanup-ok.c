// fixture: idioms/goto-cleanup-ok — one cleanup label frees every buffer on every path
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: kernel-style error handling.  All pointers start NULL, every
 * failure jumps to one label, and the label frees everything (free(NULL)
 * is a no-op).  On success ownership of `msg` moves to *out and the local
 * is cleared so that the cleanup does not free it.
 * Leaking twin: goto-cleanup-leak.c.
 */

int build_message(const char *user, const char *text, char **out)
{
    char *head = NULL, *body = NULL, *msg = NULL;
    size_t hl = strlen(user) + 3, bl = strlen(text) + 2;
    int rc = -1;

    head = malloc(hl);
    if (head == NULL)
        goto out;
    body = malloc(bl);
    if (body == NULL)
        goto out;
    msg = malloc(hl + bl);
    if (msg == NULL)
        goto out;
    snprintf(head, hl, "%s: ", user);
    snprintf(body, bl, "%s\n", text);
    snprintf(msg, hl + bl, "%s%s", head, body);
    *out = msg;
    msg = NULL;
    rc = 0;
out:
    free(msg);
    free(body);
    free(head);
    return rc;
}
