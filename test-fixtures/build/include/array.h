/* A growable array declared by a macro, as neomutt's mutt/array.h writes it: the struct's
 * members exist only after expansion. */
#ifndef FIXTURE_ARRAY_H
#define FIXTURE_ARRAY_H

#include <stddef.h>

#define ARRAY_HEAD(name, T)                                                    \
  struct name                                                                  \
  {                                                                            \
    size_t size;                                                               \
    size_t capacity;                                                           \
    T *entries;                                                                \
  }

#define ARRAY_ADD_NORESERVE(head, elem)                                        \
  ((head)->capacity > (head)->size                                             \
   ? (((head)->entries[(head)->size++] = (elem)), 1)                           \
   : 0)

#endif
