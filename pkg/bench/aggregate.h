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

/* The aggregate built one worker at a time, so that no more than one worker's result need be
 * held (a worker's parsed result is about 23 times its JSON; 64 of them were 100 MiB): new, add
 * every worker's result in index order, finish once, free. bench_agg_add borrows r (NULL: a
 * worker without a result) only during the call; what the aggregate keeps is bounded by the
 * merged figures (the histogram, the merged latency series, the union of the timelines'
 * points, statements and fio jobs, the "workers" list), not by the number of workers.
 * bench_agg_finish returns what bench_aggregate would for the same results in the same order
 * (test_aggregate checks it figure for figure); err as there. */
struct bench_agg;
struct bench_agg *bench_agg_new(void);
void bench_agg_add(struct bench_agg *a, const cJSON *r);
cJSON *bench_agg_finish(struct bench_agg *a, char *err, size_t errlen);
void bench_agg_free(struct bench_agg *a);

/* All of results at once: bench_agg_* over them. results[i] may be NULL (a worker without a
 * result): it is listed in "workers" with complete=false and makes the aggregate incomplete.
 * Returns a new object (caller owns) or NULL with a message in err (no valid result at all, or
 * kinds differ); allocation failure aborts (pkg/util/mem.h). */
cJSON *bench_aggregate(const cJSON *const *results, size_t n, char *err, size_t errlen);

/* True when agg's latency percentiles are the slowest worker's (an upper bound), not merged:
 * no histogram, and more than one worker with transactions gave its own. */
bool bench_aggregate_bounded(const cJSON *agg);

#endif
