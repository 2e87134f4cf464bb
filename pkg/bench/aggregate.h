/* Aggregation of N worker results (same schema) into one result, for the controller.
 *
 * Definitions (also in docs/result-schema.md, "Aggregate"):
 *  - counts (transactionsProcessed, failedTransactions, abortedClients, retried, retries,
 *    skipped, serialization/deadlock failures, aboveLatencyLimit) are summed;
 *  - tps is the sum of the workers' tps: workers start together on one start barrier and run the
 *    same duration, so each worker's tps is over the same common window;
 *  - latencyAvgMs is the transaction-weighted mean; latencyStddevMs the pooled standard deviation;
 *    initialConnectionMs the largest worker's value;
 *  - percentiles and latencyMaxMs come from the merged histogram (exact merge); when a worker
 *    with transactions lacks a histogram (its result is the compact termination summary), the
 *    rows status shows are the workers' own values instead: exact for one worker, the largest
 *    for several (an upper bound of the merged percentile; for latencyMaxMs the exact value),
 *    null when such a worker lacks that value; latencyMinMs and the histogram stay null;
 *  - timeline points are aligned by t (rounded to the progress interval): tps and failed summed,
 *    latency weighted by each worker's tps at that point, stddev pooled, lag the max; "workers"
 *    says how many workers contributed to a point;
 *  - statements are matched by (script, command): latency weighted by the workers' transaction
 *    counts, failures and retries summed;
 *  - waitEvents samples and events are summed; replica lag samples are concatenated, max kept;
 *  - pgbench.clients and threads are summed, the rest taken from the first worker;
 *  - complete is true only when every worker is complete; exitCode is the worst (max);
 *  - "workers": [{index, complete, exitCode, tps, transactionsProcessed, failedTransactions,
 *    abortedClients, latencyAvgMs}] lists every input;
 *  - fio jobs are matched by name: iops and bandwidth summed, latency percentiles the worst
 *    (max) worker's (fio percentiles cannot be merged exactly).
 */
#ifndef PGBO_BENCH_AGGREGATE_H
#define PGBO_BENCH_AGGREGATE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* results[i] may be NULL (a worker without a result): it is listed in "workers" with
 * complete=false and makes the aggregate incomplete. Returns a new object (caller owns) or NULL
 * with a message in err (no valid result at all, or kinds differ); allocation failure aborts
 * (pkg/util/mem.h). */
cJSON *bench_aggregate(const cJSON *const *results, size_t n, char *err, size_t errlen);

/* True when agg's latency percentiles are the slowest worker's (an upper bound), not merged:
 * no histogram, and more than one worker with transactions gave its own. */
bool bench_aggregate_bounded(const cJSON *agg);

#endif
