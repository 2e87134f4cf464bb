/* The project's version, one source for every program: the VERSION file at the repository root
 * (the Makefile passes it as PGBO_VERSION) and the git commit it was built from (PGBO_COMMIT,
 * "unknown" outside a git checkout, e.g. in an image build from a source tarball).
 */
#ifndef PGBO_UTIL_VERSION_H
#define PGBO_UTIL_VERSION_H

#include <stddef.h>

/* "0.1.0"; never NULL, static storage. */
const char *util_version(void);
/* Abbreviated commit hash ("648c126", "648c126-dirty") or "unknown"; never NULL, static storage. */
const char *util_commit(void);
/* The runner image of this version, the operator's default --runner-image and the chart's:
 * "ghcr.io/pgbench-operator/runner:<version>" (scripts/images.sh tags it so). Static storage. */
const char *util_runner_image(void);
/* Every program's --version line, without newline: "<program> <version> (commit <commit>)",
 * into buf (truncated to n - 1 bytes). Returns buf. */
char *util_version_line(char *buf, size_t n, const char *program);

#endif
