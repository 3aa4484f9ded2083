// fixture: idioms/file-local-type-leak — names.c: its own `plugin_data`, whose `total` holds a pointer
#include <stdlib.h>
#include <string.h>

/* Each file of a plugin project defines its own `plugin_data` (counter.c's holds two
   numbers). Read with counter.c's definition, `p->total` is an integer that no reference
   can live in, and the block stored there and then dropped seemed never lost. */
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
    p->total = NULL;
}                                       // expect: leak fresh
