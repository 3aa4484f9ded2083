// fixture: idioms/struct-fields-leak — free(u) while u->email still owns a string
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a destructor that frees the struct but not every field it owns.
 * user_free() releases name, then the struct; the struct's email field was
 * the last reference to the email string, so free(u) loses it.
 * Fixed twin: struct-fields-ok.c.
 */

struct user {
    char *name;
    char *email;
    int id;
};

static struct user *user_new(const char *name, const char *email, int id)
{
    struct user *u = malloc(sizeof *u);

    if (u == NULL)
        return NULL;
    u->name = strdup(name);
    u->email = strdup(email);
    if (u->name == NULL || u->email == NULL) {
        free(u->name);
        free(u->email);
        free(u);
        return NULL;
    }
    u->id = id;
    return u;
}

static void user_free(struct user *u)
{
    free(u->name);
    free(u);                                    // expect: leak u->email
}

int user_is_valid(const char *name, const char *email, int id)
{
    struct user *u = user_new(name, email, id);
    int ok;

    if (u == NULL)
        return -1;
    ok = u->id > 0 && u->name[0] != '\0' && u->email[0] != '\0';
    user_free(u);
    return ok;
}
