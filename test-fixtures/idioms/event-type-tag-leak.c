// fixture: idioms/event-type-tag-leak — the generic free does not know the constructor's type tag
#include <stdlib.h>

/*
 * Idiom: as in event-type-tag-ok.c, but the key constructor tags its events
 * EV_CURSOR, a type `event_free` has no arm for: a refused event is not
 * freed.
 * Fixed twin: event-type-tag-ok.c.
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
    ev->type = EV_CURSOR;
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
        return 0;                       // expect: leak ev
    }
    return 1;
}
