/* Attribute macros as lighttpd's first.h writes them: a fallback `__has_attribute` for old
 * compilers, a version test defined in a `#ifndef` the model cannot decide, and each
 * attribute behind `#if __has_attribute(x) || __GNUC_PREREQ(maj, min)`. */
#ifndef FIXTURE_COMPAT_H
#define FIXTURE_COMPAT_H

#ifndef __has_attribute
#define __has_attribute(x) 0
#endif

#ifndef __GNUC_PREREQ
#ifdef __GNUC_PREREQ__
#define __GNUC_PREREQ __GNUC_PREREQ__
#else
#define __GNUC_PREREQ(maj, min) ((__GNUC__ << 16) + __GNUC_MINOR__ >= ((maj) << 16) + (min))
#endif
#endif

#ifndef __attribute_noreturn__
#if __has_attribute(noreturn) || __GNUC_PREREQ(2, 5)
#define __attribute_noreturn__ __attribute__((__noreturn__))
#else
#define __attribute_noreturn__
#endif
#endif

__attribute_noreturn__
void compat_fail(const char *msg);
void compat_warn(const char *msg);

#endif
