// fixture: idioms/config-parse-ok — `key=value` parser frees or hands over both copies on every path
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

/*
 * Idiom: a config-line parser that copies key and value, then dispatches
 * on the key.  "host" transfers the value into the config (after freeing
 * the old one), "port" converts and frees it, and the unknown-key error
 * path frees both copies.  Leaking twin: config-parse-leak.c.
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
        free(value);
        return -1;
    }
    free(key);
    return 0;
}
