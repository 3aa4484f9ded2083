// fixture: idioms/goto-cleanup-leak — the cleanup label forgets one of three buffers
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: kernel-style error handling with a single cleanup label, where
 * the label frees `msg` and `head` but not `body`.  Every path that got
 * `body` from malloc (a later malloc failing, or success) reaches the
 * return with `body` as the last reference.
 * Fixed twin: goto-cleanup-ok.c.
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
    free(head);
    return rc;                                  // expect: leak body
}
