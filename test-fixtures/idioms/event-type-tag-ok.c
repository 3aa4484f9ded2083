// fixture: idioms/event-type-tag-ok — a constructor's type tag decides the generic free
#include <stdlib.h>

/*
 * Idiom: events of several struct types share a first member `type`. A
 * constructor sets it through its own struct type (`ev->type = EV_KEY`),
 * the generic `event_free` reads it through the base type and frees only
 * the types it knows. The caller frees a refused key event: `event_free`
 * takes its EV_KEY arm, so nothing leaks. The tag is one location seen
 * through either struct type (their common initial sequence), and it is not
 * written by `ev->code = code`, another member.
 * Leaking twin: event-type-tag-leak.c.
 */
enum { EV_KEY = 1, EV_CURSOR = 2, EV_CLIP = 3 };
typedef struct { int type; } EVENT;
typedef struct { int type; int flags; int code; } EVENT_KEY;
typedef struct { int type; char *data; } EVENT_CLIP;
typedef struct { EVENT **items; int n; int cap; } QUEUE;
EVENT_KEY *event_key_new(int code)
{
    EVENT_KEY *ev = (EVENT_KEY *)calloc(1, sizeof(EVENT_KEY));
    if (!ev) return NULL;
    ev->type = EV_KEY;
    ev->code = code;
    return ev;
}
void event_free(EVENT *ev)
{
    if (!ev) return;
    switch (ev->type) {
    case EV_KEY: free(ev); break;
    case EV_CLIP: free(((EVENT_CLIP *)ev)->data); free(ev); break;
    default: break;
    }
}
int push_event(QUEUE *q, EVENT *ev)
{
    if (q->n >= q->cap) return 0;
    q->items[q->n++] = ev;
    return 1;
}
int send_key(QUEUE *q, int code)
{
    EVENT_KEY *ev = event_key_new(code);
    if (!ev) return 0;
    if (!push_event(q, (EVENT *)ev)) {
        event_free((EVENT *)ev);
        return 0;
    }
    return 1;
}
