/* pkg/bench: pgbench and fio command lines, their parsers, the latency histogram, the result JSON
 * and the aggregation of worker results. Include this or the individual headers. */
#ifndef PGBO_BENCH_BENCH_H
#define PGBO_BENCH_BENCH_H

#include "pkg/bench/aggregate.h"
#include "pkg/bench/argv.h"
#include "pkg/bench/fio.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/pgbench.h"
#include "pkg/bench/result.h"

#endif
