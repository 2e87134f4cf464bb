#include "pkg/util/err.h"

#include <errno.h>
#include <stdio.h>

int util_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        (void)vsnprintf(err, errlen, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    return -EINVAL;
}

int util_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = util_verrf(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}
