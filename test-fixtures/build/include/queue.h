/* A compat copy of the BSD <sys/queue.h> tail queues, as projects ship in-tree. */
#ifndef FIXTURE_QUEUE_H
#define FIXTURE_QUEUE_H

#define TAILQ_HEAD(name, type)                                                  \
	struct name {                                                           \
		struct type *tqh_first;                                         \
		struct type **tqh_last;                                         \
	}

#define TAILQ_ENTRY(type)                                                       \
	struct {                                                                \
		struct type *tqe_next;                                          \
		struct type **tqe_prev;                                         \
	}

#define TAILQ_FIRST(head) ((head)->tqh_first)
#define TAILQ_NEXT(elm, field) ((elm)->field.tqe_next)
#define TAILQ_EMPTY(head) (TAILQ_FIRST(head) == NULL)

#define TAILQ_FOREACH(var, head, field)                                         \
	for ((var) = TAILQ_FIRST(head); (var) != NULL;                          \
	     (var) = TAILQ_NEXT(var, field))

#define TAILQ_INIT(head)                                                        \
	do {                                                                    \
		TAILQ_FIRST((head)) = NULL;                                     \
		(head)->tqh_last = &TAILQ_FIRST((head));                        \
	} while (0)

#define TAILQ_INSERT_TAIL(head, elm, field)                                     \
	do {                                                                    \
		TAILQ_NEXT((elm), field) = NULL;                                \
		(elm)->field.tqe_prev = (head)->tqh_last;                       \
		*(head)->tqh_last = (elm);                                      \
		(head)->tqh_last = &TAILQ_NEXT((elm), field);                   \
	} while (0)

#endif
