// fixture: build/target-system-leak — the arm of the build's own system is analysed
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* As target-system-ok.c, with the early return in the Linux arm: it is this build's leak. */
int log_line(int fd, const char *msg)
{
	size_t n = strlen(msg);
	char *line = malloc(n + 1);
	if (line == NULL)
		return -1;
	memcpy(line, msg, n + 1);
#ifdef __linux__
	if (fd < 0)
		return -1; // expect: leak line
#endif
	ssize_t rc = write(fd, line, n);
	free(line);
	return rc < 0 ? -1 : 0;
}
