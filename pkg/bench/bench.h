/* pkg/bench: pgbench and fio command lines, their parsers, the latency histogram, the result JSON
 * and the aggregation of worker results.
 *
 * Owns the result contract (fields.def: every key of a result, its unit, how workers merge and
 * where it goes in status), the runner's flags (runner_args.c) and the numbers: parsing what
 * pgbench and fio print, percentiles from the histogram, Little's law, the USL fit, the spread
 * of repeated runs and Welch's t-test (stats.h). Pure functions over text and cJSON trees: no
 * sockets, no processes, no libpq (of pkg/pg only the conninfo.h struct), no Kubernetes
 * (pkg/kube, pkg/controller). Allocation failure aborts
 * (pkg/util/mem.h): no function here returns NULL or -ENOMEM for it, so what one returns is a real
 * error (bad input). Include this or the individual headers. */
#ifndef PGBO_BENCH_BENCH_H
#define PGBO_BENCH_BENCH_H

#include "pkg/bench/aggregate.h"
#include "pkg/bench/argv.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fio.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/init_progress.h"
#include "pkg/bench/latseries.h"
#include "pkg/bench/pgbench.h"
#include "pkg/bench/result.h"
#include "pkg/bench/stats.h"

#endif
