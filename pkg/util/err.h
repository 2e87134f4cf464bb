/* Error messages for callers that pass (char *err, size_t errlen): the text a user reads, next to
 * the negative errno a function returns. Knows nothing of logging (log.h) or of who reads the
 * message. */
#ifndef PGBO_UTIL_ERR_H
#define PGBO_UTIL_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats a message into err (which may be NULL or zero-sized) and returns -EINVAL, so that a
 * failing check reads `return util_errf(err, errlen, "spec.workers: must be >= 1");`. */
int util_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int util_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
