// fixture: idioms/config-parse-leak — `key=value` parser forgets the value copy for an unknown key
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a config-line parser that copies key and value, then dispatches
 * on the key.  "host" transfers the value into the config (after freeing
 * the old one), "port" converts and frees it; the unknown-key error path
 * frees the key but forgets the value, whose last reference is `value`.
 * Fixed twin: config-parse-ok.c.
 */

struct config {
    char *host;
    int port;
};

int config_apply_line(struct config *cfg, const char *line)
{
    size_t klen = strcspn(line, "=");
    char *key, *value;

    if (line[klen] != '=')
        return -1;
    key = strndup(line, klen);
    if (key == NULL)
        return -1;
    value = strdup(line + klen + 1);
    if (value == NULL) {
        free(key);
        return -1;
    }
    if (strcmp(key, "host") == 0) {
        free(cfg->host);
        cfg->host = value;
    } else if (strcmp(key, "port") == 0) {
        cfg->port = atoi(value);
        free(value);
    } else {
        free(key);
        return -1;                              // expect: leak value
    }
    free(key);
    return 0;
}
