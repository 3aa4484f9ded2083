// fixture: build/target-system-ok — another system's `#ifdef` arm is not this build's code
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The build targets Linux (the default `target`): `_WIN32` is not defined, so the Windows
 * arm, which returns before the free, is dead code here, as the compiler of this build and
 * clangd see it. Left undecided, both arms were analysed and the Windows arm's early return
 * was reported as this build's leak.
 */
int log_line(int fd, const char *msg)
{
	size_t n = strlen(msg);
	char *line = malloc(n + 1);
	if (line == NULL)
		return -1;
	memcpy(line, msg, n + 1);
#ifdef _WIN32
	if (fd < 0)
		return -1;
#endif
	ssize_t rc = write(fd, line, n);
	free(line);
	return rc < 0 ? -1 : 0;
}
