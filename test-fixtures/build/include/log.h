/* A logging macro around a library function, as OpenSSH's error_f wraps sshlog. */
#ifndef FIXTURE_LOG_H
#define FIXTURE_LOG_H
#include <stdio.h>

#define log_error(fmt, ...)                                                     \
	fprintf(stderr, "%s: " fmt "\n", __func__, ##__VA_ARGS__)
#define log_check(cond)                                                         \
	do {                                                                    \
		if (!(cond))                                                    \
			log_error("check failed: %s", #cond);                   \
	} while (0)

#endif
