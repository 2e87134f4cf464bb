/* pkg/pg: what the runner asks of a PostgreSQL server, through libpq.
 *
 *   pg_conn.c   connecting with a classified, redacted error; readiness; CREATE DATABASE
 *   pg_info.c   server facts and settings, dataset size, whether pgbench's tables are there
 *   pg_diag.c   the wait-event sampler and the replica catch-up/lag check during a run
 *   pg_stats.c  server counters as deltas over the load, the SELECT 1 round trip
 *
 * Owns every libpq call in the tree; only the runner links it. The target's connection parameters
 * are pkg/bench/conninfo.h's struct bench_conninfo (no libpq), which the operator and the plugin
 * share. Writes its findings under the result contract's keys (pkg/bench/fields.h) and knows
 * nothing else of pkg/bench. Must not know
 * Kubernetes, the operator, or pgbench's own output. Never sees a password: libpq reads
 * PGPASSWORD or PGPASSFILE itself. Include this or the individual headers. */
#ifndef PGBO_PG_PG_H
#define PGBO_PG_PG_H

#include "pkg/pg/pg_conn.h"
#include "pkg/pg/pg_diag.h"
#include "pkg/pg/pg_info.h"
#include "pkg/pg/pg_stats.h"

#endif
