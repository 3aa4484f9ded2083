/*
 * Included by every adapter BEFORE the fixture (see driver.h for the whole design).
 *
 * The fixture's own `#include <stdlib.h>` is then a no-op (include guard), and its calls of
 * malloc and free go to the driver, which records every block (to tell which ones the routine
 * freed or allocated, and to fail a chosen allocation).
 */
#ifndef PAPER_INPUTS_PRELUDE_H
#define PAPER_INPUTS_PRELUDE_H

#include <stddef.h>
#include <stdlib.h>

void *driver_malloc(size_t size);
void driver_free(void *p);

#define malloc(size) driver_malloc(size)
#define free(p) driver_free(p)

#endif
