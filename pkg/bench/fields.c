/* The result contract table (see fields.h) and the path helpers that read it. */
#include "pkg/bench/fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* path, type, unit, merge, compact, status path, presence, description */
#define F(p, t, u, m, c, s, pr, d) {p, BF_##t, u, BM_##m, c, s, BP_##pr, 0, false, d}
/* a list: path, merge, status path, max items in status, downsampled, description */
#define L(p, m, s, max, ds, d) {p, BF_LIST, NULL, BM_##m, false, s, BP_OPTIONAL, max, ds, d}

const struct bench_field bench_fields[] = {
    /* ---- top level ---- */
    F("schemaVersion", INT, NULL, FIRST, true, NULL, OPTIONAL, "Always 1."),
    F("kind", STR, NULL, FIRST, true, NULL, OPTIONAL,
      "pgbench (a run), pgbench-init (an init) or fio (storage probe)."),
    F("complete", BOOL, NULL, ALL, true, NULL, OPTIONAL,
      "The benchmark ran to the end: pgbench exit 0, final report printed, no client aborted, no "
      "\"Run was aborted\" line (fio: exit 0 and every job error 0). Aggregate: every worker "
      "complete."),
    F("worker", INT, NULL, NONE, true, NULL, OPTIONAL,
      "JOB_COMPLETION_INDEX; null when standalone and in aggregates."),
    F("startTime", TIME, NULL, MIN, false, NULL, OPTIONAL,
      "Runner clock when the child process started (aggregate: the earliest)."),
    F("endTime", TIME, NULL, MAX, false, NULL, OPTIONAL,
      "Runner clock when the child process ended (aggregate: the latest)."),
    F("exitCode", INT, NULL, MAX, true, NULL, OPTIONAL,
      "The runner's exit code: 0 ok, 1 usage/config, 2 ran but incomplete, 3 target unreachable "
      "(aggregate: the largest)."),
    F("childExitCode", INT, NULL, NONE, true, NULL, OPTIONAL,
      "pgbench's or fio's exit status; null when it did not run."),
    F("errors", STRLIST, NULL, CONCAT, true, NULL, OPTIONAL,
      "pgbench error lines, runner errors (connection failures say DNS/refused/auth/TLS), fio "
      "jobs without latencies. At most 200; in aggregates prefixed \"worker N: \"."),
    F("dropped", OBJECT, NULL, SUM, false, NULL, OPTIONAL,
      "{errors, statements, timeline}: entries beyond the caps, counted but not kept."),
    F("truncated", BOOL, NULL, NONE, true, NULL, OPTIONAL,
      "Compact summary only: something was left out to stay under the termination-log limit."),
    F("workerCount", INT, "count", RECOMPUTE, false, NULL, OPTIONAL,
      "Aggregate only: the number of workers."),

    /* ---- summary ---- */
    F("summary", SECTION, NULL, NONE, true, "summary", ALWAYS,
      "The final report's numbers plus percentiles, merged over workers."),
    F("summary.transactionsProcessed", INT, "count", SUM, true, "summary.transactions", ALWAYS,
      "Successful transactions: `number of transactions actually processed: N[/M]`."),
    F("summary.transactionsTarget", INT, "count", SUM, true, NULL, OPTIONAL,
      "The M of `N/M` with -t."),
    F("summary.failedTransactions", INT, "count", SUM, true, "summary.failed", OPTIONAL,
      "`number of failed transactions: N (x%)` (pgbench >= 15; null before, pgbench 14 does not count failures)."),
    F("summary.failedPct", NUM, "%", RECOMPUTE, true, NULL, OPTIONAL,
      "The x of `number of failed transactions: N (x%)`: failed / (processed + skipped + failed) * 100; recomputed from the sums."),
    F("summary.serializationFailures", INT, "count", SUM, true, NULL, OPTIONAL,
      "--failures-detailed: serialization failures."),
    F("summary.deadlockFailures", INT, "count", SUM, true, NULL, OPTIONAL,
      "--failures-detailed: deadlock failures."),
    F("summary.otherFailures", INT, "count", SUM, true, NULL, OPTIONAL,
      "`number of other failures` (pgbench newer than 17, --continue-on-error)."),
    F("summary.retried", INT, "count", SUM, true, "summary.retried", OPTIONAL,
      "`number of transactions retried` (--max-tries != 1)."),
    F("summary.retries", INT, "count", SUM, true, NULL, OPTIONAL, "`total number of retries`."),
    F("summary.skipped", INT, "count", SUM, true, "summary.skipped", OPTIONAL,
      "`number of transactions skipped` (-R with -L)."),
    F("summary.aboveLatencyLimit", INT, "count", SUM, true, NULL, OPTIONAL,
      "`number of transactions above the X ms latency limit: N/M` (-L)."),
    F("summary.abortedClients", INT, "count", SUM, true, "summary.aborted", ALWAYS,
      "Distinct client ids in `client N ... aborted` error lines (all versions)."),
    F("summary.tps", NUM, "1/s", SUM, true, "summary.tps", ALWAYS,
      "The headline tps, comparable across versions: >= 14 `tps = X (without initial connection "
      "time)`, <= 13 `tps = X (excluding connections establishing)`, with -C on >= 14 `tps = X "
      "(including reconnection times)`. Summed over workers, which share one start barrier and "
      "duration."),
    F("summary.tpsIncludingConnect", NUM, "1/s", SUM, true, "summary.tpsIncludingConnect",
      OPTIONAL, "<= 13 `tps = X (including connections establishing)`; with -C on >= 14 the same as tps; null otherwise."),
    F("summary.latencyIncludesFailures", BOOL, NULL, ALL, true, NULL, OPTIONAL,
      "`latency average = X ms (including failures)` (pgbench >= 15 without -P/-R/-L: the average is computed from the run time and failed transactions' time is in it)."),
    F("summary.latencyAvgMs", NUM, "ms", TXMEAN, true, "summary.latencyAvgMs", ALWAYS,
      "`latency average = X ms`; transaction-weighted mean over workers."),
    F("summary.latencyStddevMs", NUM, "ms", POOLED, true, "summary.latencyStddevMs", OPTIONAL,
      "`latency stddev = X ms` (pgbench prints it only with -P, -R or -L); pooled over workers, null when a worker lacks it."),
    F("summary.initialConnectionMs", NUM, "ms", MAX, true, NULL, OPTIONAL,
      "`initial connection time = X ms` (pgbench >= 14, without -C); the slowest worker's."),
    F("summary.averageConnectionMs", NUM, "ms", TXMEAN, true, NULL, OPTIONAL,
      "`average connection time = X ms` (pgbench >= 14, with -C)."),
    F("summary.rateLimitLagAvgMs", NUM, "ms", TXMEAN, true, NULL, OPTIONAL,
      "`rate limit schedule lag: avg X (max Y) ms` (-R): X."),
    F("summary.rateLimitLagMaxMs", NUM, "ms", MAX, true, NULL, OPTIONAL, "`rate limit schedule lag: avg X (max Y) ms` (-R): Y."),
    F("summary.latencyP50Ms", NUM, "ms", HIST, true, "summary.latencyP50Ms", ALWAYS,
      "Median latency from the histogram of the -l log of successful transactions (pgbench prints no percentiles); nearest rank, within 0.4 % of exact; null without a log."),
    F("summary.latencyP90Ms", NUM, "ms", HIST, true, "summary.latencyP90Ms", ALWAYS,
      "90th percentile latency (merged histogram)."),
    F("summary.latencyP95Ms", NUM, "ms", HIST, true, "summary.latencyP95Ms", ALWAYS,
      "95th percentile latency (merged histogram)."),
    F("summary.latencyP99Ms", NUM, "ms", HIST, true, "summary.latencyP99Ms", ALWAYS,
      "99th percentile latency (merged histogram)."),
    F("summary.latencyP999Ms", NUM, "ms", HIST, true, "summary.latencyP999Ms", ALWAYS,
      "99.9th percentile latency (merged histogram)."),
    F("summary.latencyMaxMs", NUM, "ms", HIST, true, "summary.latencyMaxMs", ALWAYS,
      "Largest transaction latency in the log."),
    F("summary.latencyMinMs", NUM, "ms", HIST, true, NULL, OPTIONAL,
      "Smallest transaction latency in the log."),
    F("summary.histogramCount", INT, "count", HIST, true, NULL, OPTIONAL,
      "Transactions in the histogram (equals transactionsProcessed)."),

    /* ---- pgbench: the run's configuration ---- */
    F("pgbench", SECTION, NULL, FIRST, true, NULL, OPTIONAL,
      "Run configuration, parsed from pgbench's report header; the runner's options fill what "
      "the header lacks."),
    F("pgbench.version", STR, NULL, FIRST, true, NULL, OPTIONAL,
      "pgbench's version (pgbench >= 14 prints it)."),
    F("pgbench.serverVersion", STR, NULL, FIRST, false, NULL, OPTIONAL,
      "The server version pgbench printed when it differs from its own."),
    F("pgbench.transactionType", STR, NULL, FIRST, false, NULL, OPTIONAL,
      "\"transaction type:\" line: a builtin, \"multiple scripts\" or a script file."),
    F("pgbench.scaleFactor", INT, NULL, FIRST, true, NULL, OPTIONAL, "\"scaling factor: N\"."),
    F("pgbench.partitionMethod", STR, NULL, FIRST, false, NULL, OPTIONAL,
      "range or hash, for a partitioned pgbench_accounts."),
    F("pgbench.partitions", INT, "count", FIRST, false, NULL, OPTIONAL,
      "Partitions of pgbench_accounts."),
    F("pgbench.queryMode", STR, NULL, FIRST, false, NULL, OPTIONAL, "simple, extended or prepared (-M)."),
    F("pgbench.clients", INT, "count", SUM, true, NULL, OPTIONAL, "Clients (-c); aggregate: summed."),
    F("pgbench.threads", INT, "count", SUM, true, NULL, OPTIONAL, "Threads (-j); aggregate: summed."),
    F("pgbench.durationSeconds", INT, "s", FIRST, false, NULL, OPTIONAL, "-T."),
    F("pgbench.transactionsPerClient", INT, "count", FIRST, false, NULL, OPTIONAL, "-t."),
    F("pgbench.maxTries", INT, "count", FIRST, false, NULL, OPTIONAL, "--max-tries (pgbench >= 15)."),
    F("pgbench.rate", NUM, "1/s", FIRST, false, NULL, OPTIONAL, "-R target rate per worker."),
    F("pgbench.latencyLimitMs", NUM, "ms", FIRST, false, NULL, OPTIONAL, "-L."),
    F("pgbench.connect", BOOL, NULL, FIRST, false, NULL, OPTIONAL, "-C: a new connection per transaction."),
    F("pgbench.noVacuum", BOOL, NULL, FIRST, false, NULL, OPTIONAL, "-n."),
    F("pgbench.failuresDetailed", BOOL, NULL, FIRST, false, NULL, OPTIONAL, "--failures-detailed."),
    F("pgbench.perStatement", BOOL, NULL, FIRST, false, NULL, OPTIONAL, "-r."),
    F("pgbench.progressSeconds", INT, "s", FIRST, false, NULL, OPTIONAL, "-P interval."),

    /* ---- the window the numbers cover ---- */
    F("window", SECTION, NULL, WINDOW, true, "window", ALWAYS,
      "The time the workers' numbers cover, against the start barrier (BENCH_START_AT) that "
      "every worker waits for. The totals (tps summed over workers) are exact over the common "
      "window; a worker that started late or ended early is named in the WorkersSkewed "
      "condition."),
    F("window.barrier", TIME, NULL, FIRST, true, "window.barrier", ALWAYS,
      "The start barrier the operator handed to the workers."),
    F("window.lateSeconds", NUM, "s", MAX, true, "window.lateSeconds", ALWAYS,
      "How long after the barrier pgbench started (aggregate: the latest worker's): the start "
      "of the common window."),
    F("window.endSeconds", NUM, "s", MIN, true, "window.endSeconds", ALWAYS,
      "When pgbench ended, in seconds after the barrier (aggregate: the earliest worker's): "
      "the end of the common window."),
    F("window.seconds", NUM, "s", RECOMPUTE, true, "window.seconds", ALWAYS,
      "Length of the common window: endSeconds - lateSeconds."),
    F("window.coveragePct", NUM, "%", RECOMPUTE, false, "window.coveragePct", ALWAYS,
      "The common window's share of the whole run (first start to last end); 100 when the "
      "workers ran together."),

    /* ---- per statement, per script, over time ---- */
    L("statements", BYKEY, "statements", 50, false,
      "Per-statement latencies (-r), matched across workers by (script, command)."),
    F("statements[].script", INT, NULL, FIRST, false, "statements[].script", OPTIONAL,
      "Script number (0 for a single script)."),
    F("statements[].command", STR, NULL, FIRST, false, "statements[].command", OPTIONAL,
      "The statement or meta-command."),
    F("statements[].latencyMs", NUM, "ms", TXMEAN, false, "statements[].latencyMs", OPTIONAL,
      "Average latency, weighted by the workers' transactions."),
    F("statements[].failures", INT, "count", SUM, false, "statements[].failures", OPTIONAL,
      "Failures in this statement (pgbench >= 15)."),
    F("statements[].retries", INT, "count", SUM, false, "statements[].retries", OPTIONAL,
      "Retries of this statement (--max-tries != 1)."),
    L("scripts", BYKEY, NULL, 0, false, "Per-script blocks (several scripts), matched by script number."),
    F("scripts[].script", INT, NULL, FIRST, false, NULL, OPTIONAL, "Script number."),
    F("scripts[].name", STR, NULL, FIRST, false, NULL, OPTIONAL, "Builtin or file name."),
    F("scripts[].weight", INT, NULL, FIRST, false, NULL, OPTIONAL, "Script weight."),
    F("scripts[].transactionsProcessed", INT, "count", SUM, false, NULL, OPTIONAL,
      "Transactions of this script."),
    F("scripts[].failedTransactions", INT, "count", SUM, false, NULL, OPTIONAL,
      "Failed transactions of this script."),
    F("scripts[].tps", NUM, "1/s", SUM, false, NULL, OPTIONAL, "tps of this script."),
    F("scripts[].latencyAvgMs", NUM, "ms", TXMEAN, false, NULL, OPTIONAL, "Average latency."),
    F("scripts[].latencyStddevMs", NUM, "ms", NONE, false, NULL, OPTIONAL,
      "Latency standard deviation (single worker only)."),
    L("timeline", BYKEY, "timeline", 300, true,
      "Progress (-P) points aligned by t across workers; long runs are downsampled evenly in "
      "status."),
    F("timeline[].t", NUM, "s", FIRST, false, "timeline[].t", OPTIONAL,
      "Seconds since the start (0.1 s resolution)."),
    F("timeline[].tps", NUM, "1/s", SUM, false, "timeline[].tps", OPTIONAL, "tps in the interval."),
    F("timeline[].latencyMs", NUM, "ms", TXMEAN, false, "timeline[].latencyMs", OPTIONAL,
      "Average latency in the interval, weighted by each worker's tps."),
    F("timeline[].stddevMs", NUM, "ms", POOLED, false, "timeline[].stddevMs", OPTIONAL,
      "Latency standard deviation in the interval, pooled."),
    F("timeline[].failed", INT, "count", SUM, false, "timeline[].failed", OPTIONAL,
      "Failed transactions in the interval."),
    F("timeline[].lagMs", NUM, "ms", MAX, false, "timeline[].lagMs", OPTIONAL,
      "-R schedule lag in the interval (the largest worker's)."),
    F("timeline[].skipped", INT, "count", SUM, false, NULL, OPTIONAL, "Skipped transactions."),
    F("timeline[].retried", INT, "count", SUM, false, NULL, OPTIONAL, "Retried transactions."),
    F("timeline[].retries", INT, "count", SUM, false, NULL, OPTIONAL, "Retries."),
    F("timeline[].workers", INT, "count", RECOMPUTE, false, NULL, OPTIONAL,
      "Aggregate only: workers that reported this point."),
    F("histogram", OBJECT, NULL, HIST, false, NULL, OPTIONAL,
      "Latency histogram of the -l log (log-linear buckets, < 0.8 % relative width); merged "
      "exactly by adding counts."),

    /* ---- per worker (aggregate) ---- */
    L("workers", NONE, "workers", 256, false,
      "One row per worker: the aggregate's numbers and what the controller saw of its pod."),
    F("workers[].index", INT, NULL, NONE, false, "workers[].index", ALWAYS, "Worker index."),
    F(NULL, STR, NULL, NONE, false, "workers[].pod", OPTIONAL, "The worker's pod."),
    F("workers[].tps", NUM, "1/s", NONE, false, "workers[].tps", ALWAYS, "The worker's tps."),
    F("workers[].transactionsProcessed", INT, "count", NONE, false, "workers[].transactions",
      ALWAYS, "The worker's successful transactions."),
    F("workers[].failedTransactions", INT, "count", NONE, false, "workers[].failed", OPTIONAL,
      "The worker's failed transactions."),
    F("workers[].abortedClients", INT, "count", NONE, false, "workers[].aborted", ALWAYS,
      "The worker's aborted clients."),
    F("workers[].latencyAvgMs", NUM, "ms", NONE, false, "workers[].latencyAvgMs", ALWAYS,
      "The worker's average latency."),
    F("workers[].lateSeconds", NUM, "s", NONE, false, "workers[].lateSeconds", ALWAYS,
      "How long after the start barrier the worker's pgbench started."),
    F("workers[].endSeconds", NUM, "s", NONE, false, "workers[].endSeconds", ALWAYS,
      "When the worker's pgbench ended, in seconds after the barrier."),
    F("workers[].exitCode", INT, NULL, NONE, false, NULL, OPTIONAL, "The runner's exit code."),
    F("workers[].complete", BOOL, NULL, NONE, false, NULL, OPTIONAL,
      "The worker's result is complete."),
    F("workers[].message", STR, NULL, NONE, false, NULL, OPTIONAL, "\"no result\" when none."),
    F(NULL, INT, NULL, NONE, false, "workers[].exitCode", OPTIONAL,
      "The runner container's exit code."),
    F(NULL, BOOL, NULL, NONE, false, "workers[].complete", ALWAYS,
      "The worker finished with a complete result and exit code 0."),
    F(NULL, STR, NULL, NONE, false, "workers[].message", ALWAYS,
      "ok, or why the worker failed (its first error)."),

    /* ---- diagnostics (status.diagnostics) ---- */
    F(NULL, SECTION, NULL, NONE, false, "diagnostics", DIAG,
      "Why the numbers are what they are: wait events, server settings, the dataset against "
      "memory, Little's law, replica lag."),
    F("waitEvents", SECTION, NULL, NONE, false, "diagnostics.waitEvents", DIAG,
      "pg_stat_activity of the load's own backends, sampled once a second from half a second "
      "after pgbench starts (diagnostics.waitEvents)."),
    F("waitEvents.samples", INT, "count", SUM, false, "diagnostics.waitEvents.samples", DIAG,
      "Sampling rounds."),
    F("waitEvents.backendSamples", INT, "count", SUM, false,
      "diagnostics.waitEvents.backendSamples", DIAG,
      "Observations of the load's backends in all rounds."),
    F("waitEvents.events", NUMMAP, "count", SUM, false, "diagnostics.waitEvents.events", DIAG,
      "Observations per wait_event_type:wait_event; CPU counts backends active with no wait "
      "event (on a CPU or waiting for one); Client:ClientRead means the server waited for "
      "pgbench."),
    F("waitEvents.sharesPct", NUMMAP, "%", RECOMPUTE, false, "diagnostics.waitEvents.sharesPct",
      DIAG, "Each event's share of backendSamples, in percent (CPU included)."),
    F("waitEvents.applicationName", STR, NULL, FIRST, false, NULL, OPTIONAL,
      "application_name of the sampled backends (pgbench-runner:<worker>:<token>)."),
    F("waitEvents.skippedTicks", INT, "count", SUM, false, "diagnostics.waitEvents.skippedTicks",
      OPTIONAL, "Rounds skipped because the previous query had not returned."),
    F("waitEvents.cpuMeans", STR, NULL, FIRST, false, NULL, OPTIONAL,
      "A one-line reminder of what CPU means."),
    F("waitEvents.error", STR, NULL, FIRST, false, "diagnostics.waitEvents.error", OPTIONAL,
      "Why sampling stopped, if it did."),
    F("server", OBJECT, NULL, FIRST, false, "diagnostics.server", DIAG,
      "Server version and the settings that decide results (SHOW values: shared_buffers, "
      "max_connections, synchronous_commit, fsync, wal_level, ...), from the first worker."),
    F("server.version", STR, NULL, FIRST, false, "diagnostics.server.version", DIAG,
      "server_version."),
    F("server.versionNum", INT, NULL, FIRST, false, "diagnostics.server.versionNum", DIAG,
      "server_version_num."),
    F("server.inRecovery", BOOL, NULL, FIRST, false, "diagnostics.server.inRecovery", DIAG,
      "The target is a standby."),
    F("server.database", STR, NULL, FIRST, false, "diagnostics.server.database", DIAG,
      "The database benchmarked."),
    F("server.databaseBytes", INT, "bytes", FIRST, false, "diagnostics.server.databaseBytes",
      DIAG, "pg_database_size."),
    F("server.sharedBuffersBytes", INT, "bytes", FIRST, false,
      "diagnostics.server.sharedBuffersBytes", DIAG, "shared_buffers in bytes."),
    F("checks", SECTION, NULL, NONE, false, NULL, OPTIONAL, "Checks of the result's validity."),
    F("checks.dataset", SECTION, NULL, FIRST, false, "diagnostics.dataset", DIAG,
      "The dataset against shared_buffers, from the first worker."),
    F("checks.dataset.databaseBytes", INT, "bytes", FIRST, false,
      "diagnostics.dataset.databaseBytes", DIAG, "Database size."),
    F("checks.dataset.sharedBuffersBytes", INT, "bytes", FIRST, false,
      "diagnostics.dataset.sharedBuffersBytes", DIAG, "shared_buffers."),
    F("checks.dataset.fitsInSharedBuffers", BOOL, NULL, FIRST, false,
      "diagnostics.dataset.fitsInSharedBuffers", OPTIONAL,
      "The database fits in shared_buffers: the run measures memory and CPU, not storage."),
    F("checks.dataset.ratio", NUM, NULL, FIRST, false, "diagnostics.dataset.ratio", OPTIONAL,
      "Database size / shared_buffers."),
    F("checks.dataset.warning", STR, NULL, FIRST, false, "diagnostics.dataset.warning", OPTIONAL,
      "Set when the database fits in shared_buffers."),
    F("checks.littlesLaw", SECTION, NULL, RECOMPUTE, false, "diagnostics.littlesLaw", ALWAYS,
      "Little's law: clients / latency against the measured tps, recomputed from the aggregate; "
      "a large deviation means time is spent outside transactions (client CPU, think time, "
      "reconnects)."),
    F("checks.littlesLaw.clients", INT, "count", RECOMPUTE, false, "diagnostics.littlesLaw.clients",
      ALWAYS, "Clients over all workers."),
    F("checks.littlesLaw.latencyAvgMs", NUM, "ms", RECOMPUTE, false,
      "diagnostics.littlesLaw.latencyAvgMs", ALWAYS, "summary.latencyAvgMs."),
    F("checks.littlesLaw.predictedTps", NUM, "1/s", RECOMPUTE, false,
      "diagnostics.littlesLaw.predictedTps", ALWAYS, "clients / (latencyAvgMs / 1000)."),
    F("checks.littlesLaw.measuredTps", NUM, "1/s", RECOMPUTE, false,
      "diagnostics.littlesLaw.measuredTps", ALWAYS, "summary.tps."),
    F("checks.littlesLaw.deviationPct", NUM, "%", RECOMPUTE, false,
      "diagnostics.littlesLaw.deviationPct", ALWAYS,
      "(measured - predicted) / predicted * 100."),
    F("checks.littlesLaw.note", STR, NULL, RECOMPUTE, false, "diagnostics.littlesLaw.note",
      OPTIONAL, "Set for throttled runs and when the deviation exceeds 10 %."),
    F("checks.replica", SECTION, NULL, MAX, false, "diagnostics.replica", OPTIONAL,
      "Replica lag: the catch-up wait before the load and the lag sampled during it (numbers "
      "max, booleans AND, samples concatenated)."),
    F("checks.replica.role", STR, NULL, FIRST, false, "diagnostics.replica.role", OPTIONAL,
      "primary or standby: where the catch-up was checked."),
    F("checks.replica.caughtUp", BOOL, NULL, ALL, false, "diagnostics.replica.caughtUp", OPTIONAL,
      "Every standby replayed the init before the load started."),
    F("checks.replica.waitedSeconds", NUM, "s", MAX, false, "diagnostics.replica.waitedSeconds",
      OPTIONAL, "How long the runner waited for the catch-up."),
    F("checks.replica.targetLsn", STR, NULL, FIRST, false, "diagnostics.replica.targetLsn",
      OPTIONAL, "The LSN the standbys had to reach."),
    F("checks.replica.standbys", INT, "count", MAX, false, "diagnostics.replica.standbys",
      OPTIONAL, "Standbys seen from the primary."),
    F("checks.replica.message", STR, NULL, FIRST, false, "diagnostics.replica.message", OPTIONAL,
      "What the catch-up check saw."),
    F("checks.replica.lagSamplesMs", NUMLIST, "ms", CONCAT, false,
      "diagnostics.replica.lagSamplesMs", OPTIONAL, "Replay lag samples during the run."),
    F("checks.replica.maxLagMs", NUM, "ms", MAX, false, "diagnostics.replica.maxLagMs", OPTIONAL,
      "The largest replay lag sampled."),
    F("checks.replica.maxLagBytes", INT, "bytes", MAX, false, "diagnostics.replica.maxLagBytes",
      OPTIONAL, "The largest lag in bytes of WAL sampled."),

    /* ---- init ---- */
    F("init", SECTION, NULL, FIRST, true, NULL, OPTIONAL, "Init outcome (kind pgbench-init)."),
    F("init.skipped", BOOL, NULL, FIRST, true, NULL, OPTIONAL,
      "The tables already held the requested scale."),
    F("init.reason", STR, NULL, FIRST, true, NULL, OPTIONAL, "Why it was skipped."),
    F("init.scale", INT, NULL, FIRST, true, NULL, OPTIONAL, "Scale factor."),
    F("init.durationSeconds", NUM, "s", FIRST, false, NULL, OPTIONAL, "How long pgbench -i ran."),

    /* ---- fio ---- */
    F("fio", SECTION, NULL, BYKEY, true, NULL, OPTIONAL, "fio results (kind fio)."),
    F("fio.version", STR, NULL, FIRST, false, NULL, OPTIONAL, "fio's version."),
    {"fio.jobs", BF_LIST, NULL, BM_BYKEY, true, "fio", BP_OPTIONAL, 64, false,
     "fio jobs matched by name: iops and bandwidth summed, latency percentiles the worst "
     "worker's (fio percentiles cannot be merged exactly)."},
    F("fio.jobs[].name", STR, NULL, FIRST, true, "fio[].job", OPTIONAL, "Job name."),
    F("fio.jobs[].read.iops", NUM, "1/s", SUM, true, "fio[].readIops", OPTIONAL, "Read IOPS."),
    F("fio.jobs[].write.iops", NUM, "1/s", SUM, true, "fio[].writeIops", OPTIONAL, "Write IOPS."),
    F("fio.jobs[].read.bwKiBs", NUM, "KiB/s", SUM, true, "fio[].readBwKiBs", OPTIONAL,
      "Read bandwidth."),
    F("fio.jobs[].write.bwKiBs", NUM, "KiB/s", SUM, true, "fio[].writeBwKiBs", OPTIONAL,
      "Write bandwidth."),
    F("fio.jobs[].read.clatUs.p99", NUM, "us", MAX, true, "fio[].readClatP99Us", OPTIONAL,
      "Read completion latency, 99th percentile."),
    F("fio.jobs[].write.clatUs.p99", NUM, "us", MAX, true, "fio[].writeClatP99Us", OPTIONAL,
      "Write completion latency, 99th percentile."),
    F("fio.jobs[].sync.p99", NUM, "us", MAX, true, "fio[].syncP99Us", OPTIONAL,
      "fsync/fdatasync latency, 99th percentile: the commit-latency floor."),
};

const size_t bench_nfields = sizeof(bench_fields) / sizeof(bench_fields[0]);

const struct bench_column bench_columns[] = {
    {"Phase", "string", ".status.phase", NULL, 0},
    {"Target", "string", ".status.target", NULL, 0},
    {"Workers", "integer", ".spec.workers", NULL, 0},
    {"Clients", "integer", ".status.clients", NULL, 0},
    {"TPS", "number", ".status.summary.tps", "Transactions per second, summed over all workers",
     0},
    {"Latency avg", "number", ".status.summary.latencyAvgMs",
     "Average transaction latency in milliseconds", 0},
    {"P99", "number", ".status.summary.latencyP99Ms",
     "99th percentile transaction latency in milliseconds (merged histograms)", 0},
    {"Age", "date", ".metadata.creationTimestamp", NULL, 0},
    {"Message", "string", ".status.message", NULL, 1},
};

const size_t bench_ncolumns = sizeof(bench_columns) / sizeof(bench_columns[0]);

const struct bench_field *bench_field_find(const char *path, bool by_status)
{
    for (size_t i = 0; path && i < bench_nfields; i++) {
        const char *p = by_status ? bench_fields[i].status : bench_fields[i].path;
        if (p && strcmp(p, path) == 0)
            return &bench_fields[i];
    }
    return NULL;
}

const char *bench_field_key(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

static const struct bench_field *must_find(const char *path, bool by_status)
{
    const struct bench_field *f = bench_field_find(path, by_status);
    if (!f) {
        (void)fprintf(stderr, "pgbench-operator: %s is not a row of the result contract table\n",
                      path);
        abort();
    }
    return f;
}

static const cJSON *not_null(const cJSON *v)
{
    return v && !cJSON_IsNull(v) ? v : NULL;
}

const cJSON *bench_get(const cJSON *result, const char *path)
{
    return not_null(bench_json_at(result, must_find(path, false)->path));
}

const cJSON *bench_status_get(const cJSON *status, const char *status_path)
{
    return not_null(bench_json_at(status, must_find(status_path, true)->status));
}

int bench_put(cJSON *result, const char *path, cJSON *v)
{
    return bench_json_put(result, must_find(path, false)->path, v);
}

const char *bench_status_key(const char *status_path)
{
    return bench_field_key(must_find(status_path, true)->status);
}

/* Copies the segment of path starting at *p into seg; advances *p past it and its dot. */
static bool next_segment(const char **p, char *seg, size_t len)
{
    const char *s = *p;
    if (!*s)
        return false;
    size_t n = strcspn(s, ".");
    if (n == 0 || n >= len)
        return false;
    memcpy(seg, s, n);
    seg[n] = '\0';
    *p = s[n] ? s + n + 1 : s + n;
    return true;
}

const cJSON *bench_json_at(const cJSON *o, const char *path)
{
    char seg[128];
    const char *p = path;
    if (!p || !*p)
        return NULL;
    while (o && next_segment(&p, seg, sizeof(seg)))
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, seg) : NULL;
    return *p ? NULL : o;
}

int bench_json_put(cJSON *o, const char *path, cJSON *v)
{
    char seg[128];
    const char *p = path;
    if (!v)
        return -ENOMEM;
    while (next_segment(&p, seg, sizeof(seg))) {
        if (!cJSON_IsObject(o))
            break;
        if (!*p) {
            if (cJSON_GetObjectItemCaseSensitive(o, seg))
                cJSON_ReplaceItemInObjectCaseSensitive(o, seg, v);
            else
                cJSON_AddItemToObject(o, seg, v);
            return 0;
        }
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, seg);
        if (!next) {
            next = cJSON_AddObjectToObject(o, seg);
            if (!next) {
                cJSON_Delete(v);
                return -ENOMEM;
            }
        }
        o = next;
    }
    cJSON_Delete(v);
    return -EINVAL;
}
