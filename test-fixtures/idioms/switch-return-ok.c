// fixture: idioms/switch-return-ok — the early return inside a `case` frees the key first
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a dispatcher that builds a normalized key, switches on the
 * command and frees the key after the switch.  The CMD_SET validation
 * returns from inside the switch and frees the key itself before doing
 * so.  Leaking twin: switch-return-leak.c.
 */

enum cmd { CMD_GET, CMD_SET, CMD_DEL };

static int lookup(const char *key) { return key[0] == 'k'; }
static int store(const char *key) { return key[0] != '\0' ? 0 : -1; }

int dispatch(enum cmd cmd, const char *arg)
{
    size_t n = strlen(arg), i;
    char *key;
    int rc;

    key = malloc(n + 1);
    if (key == NULL)
        return -1;
    for (i = 0; i <= n; i++)
        key[i] = (char)tolower((unsigned char)arg[i]);
    switch (cmd) {
    case CMD_GET:
        rc = lookup(key);
        break;
    case CMD_SET:
        if (n == 0) {
            free(key);
            return -1;
        }
        rc = store(key);
        break;
    default:
        rc = -1;
        break;
    }
    free(key);
    return rc;
}
