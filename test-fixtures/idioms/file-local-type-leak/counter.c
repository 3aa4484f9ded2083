// fixture: idioms/file-local-type-leak — counter.c: this file's own `plugin_data`, two numbers
typedef struct {
    int refs;
    long total;
} plugin_data;

int plugin_count(plugin_data *p) {
    p->refs = p->refs + 1;
    return p->refs;
}
