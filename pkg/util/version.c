/* The version strings the Makefile compiles in (see version.h). */
#include "pkg/util/version.h"

#include <stdio.h>

#ifndef PGBO_VERSION
#define PGBO_VERSION "0.0.0-dev"
#endif
#ifndef PGBO_COMMIT
#define PGBO_COMMIT "unknown"
#endif

const char *util_version(void)
{
    return PGBO_VERSION;
}

const char *util_commit(void)
{
    return PGBO_COMMIT;
}

const char *util_runner_image(void)
{
    return "ghcr.io/pgbench-operator/runner:" PGBO_VERSION;
}

char *util_version_line(char *buf, size_t n, const char *program)
{
    (void)snprintf(buf, n, "%s %s (commit %s)", program, PGBO_VERSION, PGBO_COMMIT);
    return buf;
}
