// fixture: build/logging-macro-leak — a logging macro around fprintf does not keep its arguments
#include <stdlib.h>
#include <string.h>
#include "include/log.h"

int make_path(const char *base)
{
	char *path = malloc(64);
	if (path == NULL)
		return -1;
	strncpy(path, base, 63);
	path[63] = '\0';
	if (strlen(path) > 60) {
		log_error("path too long: %s", path);
		return -1; // expect: leak path
	}
	log_check(path[0] != '\0');
	free(path);
	return 0;
}
