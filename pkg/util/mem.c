/* The out-of-memory policy (mem.h): allocation failure logs and aborts. */
#include "pkg/util/mem.h"
#include "pkg/util/log.h"

#include <stdlib.h>
#include <string.h>

_Noreturn void util_oom(size_t n)
{
    log_error("util", "out of memory allocating %zu bytes", n);
    abort();
}

void *util_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        util_oom(n);
    return p;
}

void *util_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        util_oom(n * size);
    return p;
}

void *util_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        util_oom(n);
    return q;
}

char *util_xstrdup(const char *s)
{
    return util_xstrndup(s, strlen(s));
}

char *util_xstrndup(const char *s, size_t n)
{
    char *p = util_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void *util_must(void *p)
{
    if (!p)
        util_oom(0);
    return p;
}
