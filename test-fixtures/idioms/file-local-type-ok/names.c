// fixture: idioms/file-local-type-ok — names.c: its own `plugin_data`, whose `total` holds a pointer
#include <stdlib.h>
#include <string.h>

/* As file-local-type-leak, with the block kept in `p->total`. */
typedef struct {
    char *name;
    char *total;
} plugin_data;

void plugin_set_name(plugin_data *p, const char *s) {
    char *copy = malloc(strlen(s) + 1);
    if (!copy)
        return;
    strcpy(copy, s);
    free(p->name);
    p->name = copy;
}

void plugin_replace_total(plugin_data *p) {
    char *fresh = malloc(8);
    if (!fresh)
        return;
    free(p->total);
    p->total = fresh;
}
