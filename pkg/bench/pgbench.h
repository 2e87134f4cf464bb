/* pgbench: command lines for init and run, and parsers for what pgbench prints.
 *
 * Command lines are argument vectors (argv.h). Connection parameters come from the libpq
 * environment (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE, ...) that the caller
 * sets for the child; the optional host/port/user/dbname fields below add -h/-p/-U/dbname. There
 * is no password field on purpose.
 *
 * Parsers accept the console output of pgbench 12 to 19 (stdout and stderr, in any interleaving
 * of whole lines), -P progress lines, and -l per-transaction logs. They never print; malformed
 * input is skipped (counted), never fatal. Every buffer has a cap. */
#ifndef PGBO_BENCH_PGBENCH_H
#define PGBO_BENCH_PGBENCH_H

#include "pkg/bench/argv.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/latseries.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------
 * Command lines
 * ------------------------------------------------------------------------------------------- */

enum bench_protocol {
    BENCH_PROTOCOL_DEFAULT = 0, /* no -M: pgbench's default (simple) */
    BENCH_PROTOCOL_SIMPLE,
    BENCH_PROTOCOL_EXTENDED,
    BENCH_PROTOCOL_PREPARED,
};

/* Parses "simple", "extended", "prepared". Returns 0 or -EINVAL. */
int bench_protocol_parse(const char *s, enum bench_protocol *out);
const char *bench_protocol_name(enum bench_protocol p); /* static string; "simple" for DEFAULT */

/* Parses "NAME[@WEIGHT]" (builtin names tpcb-like, simple-update, select-only and pgbench's
 * unambiguous prefixes are NOT expanded: exactly those three names are accepted) or
 * "FILE[@WEIGHT]" for scripts. WEIGHT is an integer 0..2^31-1, default 1. *name_out is a
 * malloc'd copy. Returns 0 or -EINVAL. */
int bench_weighted_parse(const char *s, char **name_out, int *weight_out);

/* An option that was not given, so pgbench's own default applies (weight 1, one try). Where a
 * field may take it, 0 is a value like any other and is passed on as it is. */
#define BENCH_PGBENCH_UNSET (-1)

struct bench_pgbench_script {
    const char *path; /* script file (e.g. a mounted ConfigMap key); must not contain '@' */
    int weight;       /* >= 0: -f FILE@WEIGHT, as pgbench honours it (0: never chosen);
                         BENCH_PGBENCH_UNSET: -f FILE (pgbench's weight 1) */
};

/* Options of `pgbench run`, one to one with pgbench flags. Start from BENCH_PGBENCH_RUN_OPTS_INIT
 * (or zero the struct and set builtin_weight and max_tries, for which 0 is a value), then set. */
#define BENCH_PGBENCH_RUN_OPTS_INIT                                                                \
    {                                                                                              \
        .builtin_weight = BENCH_PGBENCH_UNSET, .max_tries = BENCH_PGBENCH_UNSET                    \
    }
struct bench_pgbench_run_opts {
    const char *pgbench_path;                /* default "pgbench" */
    const char *host, *port, *user, *dbname; /* optional; NULL = from the libpq environment */

    int clients;          /* -c, >= 1 */
    int threads;          /* -j, >= 1; capped at clients (pgbench refuses threads > clients) */
    int duration_s;       /* -T, exactly one of duration_s / transactions is > 0 */
    int64_t transactions; /* -t, per client */

    const char *builtin; /* -b tpcb-like|simple-update|select-only; NULL = tpcb-like when no
                            scripts are given, none otherwise */
    int builtin_weight;  /* -b NAME@W when >= 0; BENCH_PGBENCH_UNSET: -b NAME (weight 1) */
    const struct bench_pgbench_script *scripts; /* -f FILE@W each */
    size_t nscripts;

    enum bench_protocol protocol; /* -M */
    double rate;                  /* -R tps, 0 = unthrottled */
    double latency_limit_ms;      /* -L ms, 0 = none (pgbench needs it > 0) */
    bool no_vacuum;               /* -n */
    bool connect;                 /* -C */
    int max_tries;                /* --max-tries=N when >= 0 (0 = unlimited: pgbench needs -T
                                     or -L); BENCH_PGBENCH_UNSET = not given (pgbench's 1);
                                     pgbench >= 15 only */
    bool failures_detailed;       /* --failures-detailed; pgbench >= 15 only */
    bool per_statement;           /* -r */
    int progress_s;               /* -P, 0 = none */
    const char *log_dir;          /* -l --log-prefix=<log_dir>/pgbench_log when non-NULL: files
                                     <log_dir>/pgbench_log.<pid>[.<thread>] */
    int pgbench_major; /* major version of the pgbench binary, 0 = unknown (assume >= 15);
                          used to refuse --max-tries/--failures-detailed on < 15 */

    const char *const *extra_args; /* validated passthrough, see bench_pgbench_check_extra */
    size_t nextra;
};

/* Options of `pgbench -i`. */
struct bench_pgbench_init_opts {
    const char *pgbench_path; /* default "pgbench" */
    const char *host, *port, *user, *dbname;
    int scale;         /* -s, >= 1 */
    bool foreign_keys; /* --foreign-keys */
    int partitions;    /* --partitions=N, 0 = none */
    bool quiet;        /* -q: progress every 5 s instead of every 100000 rows */
    /* where the data is generated: "server" (step G: INSERT ... SELECT generate_series, nothing
     * streamed from pgbench), "client" (step g: COPY from pgbench); NULL = server where the
     * pgbench has G (>= 13), else client */
    const char *generation;
    const char *steps;      /* -I, 1..32 of dtgGvpf; NULL = pgbench's dtgvp with the generation's
                               letter (and f with foreign_keys, which pgbench appends) */
    int fillfactor;         /* -F 10..100; 0 = not given (pgbench's 100) */
    bool unlogged_tables;   /* --unlogged-tables */
    const char *tablespace; /* --tablespace, --index-tablespace: names; NULL = the default */
    const char *index_tablespace;
    int pgbench_major;             /* of the binary, 0 = unknown (assumed >= 13) */
    const char *const *extra_args; /* validated passthrough (init allow-list) */
    size_t nextra;
};

/* The options of bench_pgbench_init_opts that bench_pgbench_init_check can refuse, so that a
 * caller names them its own way (the runner's flag, the spec's field). */
enum bench_init_field {
    BENCH_INIT_F_NONE = 0,
    BENCH_INIT_F_GENERATION,
    BENCH_INIT_F_STEPS,
    BENCH_INIT_F_FILLFACTOR,
    BENCH_INIT_F_TABLESPACE,
    BENCH_INIT_F_INDEX_TABLESPACE,
};
/* The init options one by one, then together: generation one of server/client; steps 1..32 of
 * pgbench's letters, not both g and G, and with generation set its letter; server-side
 * generation (G) only with pgbench >= 13 (pgbench_major, 0 = unknown: allowed); fillfactor 0 or
 * 10..100; tablespaces identifiers of at most 63 characters. Returns 0, or -EINVAL with *field the
 * option refused (may be NULL) and err the reason and fix without the option's name ("\"dtxp\":
 * use 1 to 32 of ..."). */
int bench_pgbench_init_check(const struct bench_pgbench_init_opts *o, enum bench_init_field *field,
                             char *err, size_t errlen);
/* The -I steps pgbench -i will run: o->steps, else "dtGvp" (server-side generation) or "dtgvp"
 * (client-side) by o->generation and o->pgbench_major; "f" appended with foreign keys when not
 * there (as pgbench does). Into out (at least 40 bytes). */
void bench_pgbench_init_steps(const struct bench_pgbench_init_opts *o, char *out, size_t n);

/* Builds the argv. Validates every option and combination as pgbench would (a total script
 * weight of 0, --max-tries=0 without -T or -L are refused with pgbench's reason); on failure
 * returns -EINVAL with a message naming the option(s) in err (may be NULL), and *out is left
 * empty. The log prefix is always "<log_dir>/pgbench_log" (BENCH_PGBENCH_LOG_PREFIX). */
#define BENCH_PGBENCH_LOG_PREFIX "pgbench_log"
int bench_pgbench_run_argv(const struct bench_pgbench_run_opts *o, struct bench_argv *out,
                           char *err, size_t errlen);
int bench_pgbench_init_argv(const struct bench_pgbench_init_opts *o, struct bench_argv *out,
                            char *err, size_t errlen);

/* Passthrough allow-list: the one list of extra pgbench arguments, used by the operator's spec
 * validation (spec.workload.pgbench.run.extraArgs) and by the runner (bench_pgbench_run_argv /
 * bench_pgbench_init_argv), so an argument the runner would refuse is refused before anything
 * runs. Extra arguments may only be (either "--opt=value" or "--opt value", short options also
 * "-Xvalue"):
 *   run:  -D/--define NAME=VALUE (NAME an identifier, VALUE printable, no newline),
 *         --random-seed=time|rand|INTEGER, -v/--vacuum-all, --verbose-errors (>= 15),
 *         --exit-on-abort (>= 16), --continue-on-error (>= 19),
 *         -s/--scale N (only used by custom scripts for :scale)
 *   init: --partition-method=range|hash
 * Everything else is refused, in particular: options that have a first-class field above
 * (-c -j -T -t -b -f -M -R -L -n -C -r -P -l -S -N -i -s(init) -q -I -F --unlogged-tables
 * --tablespace --index-tablespace --max-tries ...,
 * bench_pgbench_extra_managed), options that change the output format the parsers rely on
 * (--progress-timestamp, --aggregate-interval, --sampling-rate, --log-prefix, -d/--debug,
 * --show-script, -V), connection options (-h -p -U, whose values come from the libpq
 * environment), -f (reads arbitrary files in the pod: scripts come through `scripts`), and
 * anything not starting with '-'. Arguments may not contain control characters and are at most
 * 1024 bytes. The version marks are checked by the run builder only (it knows pgbench_major):
 * the operator cannot know the image's pgbench.
 * On success *consumed is the number of elements of args the first option used (1 or 2). On
 * failure err names the argument: "'--foo' is not allowed for pgbench run (allowed: ...)"; the
 * builders prefix "extra args: ". */
int bench_pgbench_check_extra(bool init, const char *const *args, size_t nargs, size_t *consumed,
                              char *err, size_t errlen);
/* True when arg is a pgbench option the runner passes itself from one of its own settings
 * (-c, --client=5, -T60, -b ... for run; -s, --partitions ... for init); flag gets the option
 * as written, without its value ("-c", "--client"). bench_pgbench_check_extra refuses these
 * too; this only lets a caller name the setting to use instead. */
bool bench_pgbench_extra_managed(bool init, const char *arg, char *flag, size_t flaglen);

/* ---------------------------------------------------------------------------------------------
 * Connection names
 *
 * The database, user and host pgbench connects with are names, never connection strings.
 * pgbench hands its database (its dbname argument, else PGDATABASE, else PGUSER) to
 * PQconnectdbParams with expand_dbname, so "dbname=x sslmode=disable" or "postgres://..." there
 * would override what the runner set (PGSSLMODE, PGHOST, PGAPPNAME) and pgbench would connect
 * elsewhere, and less safely, than the runner's own connections, which take the value literally.
 * The operator's spec validation and the runner use these checks, so such a value never reaches
 * pgbench.
 * ------------------------------------------------------------------------------------------- */

/* True when libpq would expand s as a connection string (its recognized_connection_string): s
 * contains '=' or starts with "postgresql://" or "postgres://". */
bool bench_conn_expands(const char *s);

/* A database or role name as PostgreSQL takes it: 1 to 63 bytes (NAMEDATALEN - 1: the server
 * truncates a longer name, which then names another database or role) and not a connection
 * string. Every other character is fine, also those that need quoting in SQL (a C string cannot
 * hold the NUL PostgreSQL refuses). Returns 0, or -EINVAL with the reason in err, worded to
 * follow the caller's "<field> \"<value>\": ". */
int bench_conn_check_name(const char *s, char *err, size_t errlen);

/* A host as libpq takes one: a DNS name (labels of letters, digits, '-' and '_', each 1 to 63
 * bytes, not starting or ending with '-'; at most 253 bytes, a trailing '.' allowed), an IPv4 or
 * IPv6 address (without brackets), or, with allow_socket, the directory of a Unix socket (an
 * absolute path). A list of hosts (',') is refused. Returns 0, or -EINVAL with the reason in err
 * (as for bench_conn_check_name). */
int bench_conn_check_host(const char *s, bool allow_socket, char *err, size_t errlen);

/* Parses the output of `pgbench --version` ("pgbench (PostgreSQL) 15.18 (Debian ...)") into a
 * major version number (e.g. 15; 9 for 9.6). Returns the major or -EINVAL. */
int bench_pgbench_version_major(const char *version_output);

/* ---------------------------------------------------------------------------------------------
 * Console output parser
 * ------------------------------------------------------------------------------------------- */

/* One -P progress line, e.g. (pgbench 15)
 *   progress: 1.0 s, 1234.5 tps, lat 1.234 ms stddev 0.321, 0 failed
 * with optional ", lag 0.100 ms", ", 3 skipped", ", 0 retried, 0 retries"; pgbench <= 14 has
 * no "failed". Absent numbers are NAN (doubles) or -1 (counts). */
struct bench_timeline_point {
    double t;          /* seconds since the run started (the "progress: T s" value) */
    double tps;        /* transactions per second in this interval */
    double latency_ms; /* mean latency in the interval; NAN when pgbench printed "lat NaN" */
    double stddev_ms;
    int64_t failed;  /* -1 when absent (pgbench <= 14) */
    double lag_ms;   /* schedule lag with -R; NAN when absent */
    int64_t skipped; /* with -R -L; -1 when absent */
    int64_t retried; /* with --max-tries != 1; -1 when absent */
    int64_t retries;
};

/* Parses one progress line (with or without a "pgbench: " prefix or trailing newline).
 * Returns 0, or -EINVAL when the line is not a progress line. */
int bench_pgbench_parse_progress(const char *line, size_t len, struct bench_timeline_point *out);

struct bench_pgbench_statement {
    int script;    /* 0-based script index ("SQL script 1" -> 0) */
    char *command; /* the statement text as printed (meta commands start with '\') */
    double latency_ms;
    int64_t failures; /* -1 when pgbench did not print the column (< 15 or no failures column) */
    int64_t retries;  /* -1 when pgbench did not print the column */
};

/* Per-script block printed when several scripts run ("SQL script N: <name>"). */
struct bench_pgbench_script_stats {
    int script;           /* 0-based */
    char *name;           /* "<builtin: TPC-B (sort of)>" or the file name */
    int weight;           /* -1 when absent */
    int64_t transactions; /* successful ones: pgbench 18+ " - number of transactions actually
                             processed: N", older " - N transactions (...)" */
    int64_t failed;       /* -1 when absent */
    double tps;           /* NAN when absent */
    double latency_avg_ms, latency_stddev_ms; /* NAN when absent */
    int processed_line; /* private: the 18+ "actually processed" line was seen */
};

/* Caps on collected lists: further entries are counted in the *_dropped fields. */
#define BENCH_PGBENCH_MAX_STATEMENTS 1024
#define BENCH_PGBENCH_MAX_ERRORS 200
#define BENCH_PGBENCH_MAX_ERROR_LEN 512
#define BENCH_PGBENCH_MAX_TIMELINE 86400
#define BENCH_PGBENCH_MAX_LINE 65536

/* Everything parsed from one pgbench run's console output. Numbers pgbench did not print are
 * NAN (doubles) or -1 (integers); they become JSON null in the result. */
struct bench_pgbench_result {
    char version[64];           /* client version, "15.18" ("" when absent) */
    char server_version[64];    /* from "pgbench (14.20 (...), server 17.6)"; "" when same/absent */
    char transaction_type[256]; /* "<builtin: TPC-B (sort of)>", "multiple scripts", file */
    int64_t scale_factor;       /* "scaling factor: N" */
    char partition_method[16];  /* "partition method: range|hash" (>= 13, partitioned tables) */
    int64_t partitions;         /* "partitions: N" */
    char query_mode[16];        /* simple|extended|prepared */
    int clients, threads;       /* -1 when absent */
    int64_t max_tries;          /* "maximum number of tries" (>= 15) */
    int duration_s;             /* "duration: N s" */
    int64_t transactions_per_client; /* "number of transactions per client" (-t) */

    int64_t transactions;        /* "number of transactions actually processed: N[/M]" */
    int64_t transactions_target; /* the M in N/M (-t runs), else -1 */
    int64_t failed;              /* "number of failed transactions: N (x%)" (>= 15) */
    double failed_pct;
    int64_t serialization_failures; /* "number of serialization failures" (>= 15 detailed) */
    int64_t deadlock_failures;
    int64_t other_failures;      /* "number of other failures" (pgbench 19, --continue-on-error) */
    int64_t retried;             /* "number of transactions retried" */
    int64_t retries;             /* "total number of retries" */
    int64_t skipped;             /* "number of transactions skipped" (-R -L) */
    int64_t above_latency_limit; /* "number of transactions above the X ms latency limit" */
    double latency_limit_ms;     /* the X above */

    /* tps: the headline number, comparable across versions: ">= 14 "(without initial connection
     * time)", <= 13 "(excluding connections establishing)", and with -C on >= 14 "(including
     * reconnection times)" (then also in tps_including_connect). */
    double tps;
    double tps_including_connect;   /* <= 13 "(including connections establishing)"; -C on >= 14 */
    bool latency_includes_failures; /* "latency average = X ms (including failures)" (>= 15,
                                       no -P/-R/-L: average from run time, failed ones counted) */
    double latency_avg_ms, latency_stddev_ms;
    double initial_connection_ms;               /* "initial connection time" (>= 14, without -C) */
    double average_connection_ms;               /* "average connection time" (>= 14, with -C) */
    double rate_lag_avg_ms, rate_lag_stddev_ms; /* "rate limit schedule lag: avg X (max Y) ms" */
    double rate_lag_max_ms;

    int aborted_clients; /* "client N aborted" lines counted (distinct lines) */
    bool run_aborted;    /* "Run was aborted; the above results are incomplete." */
    bool summary_seen;   /* "transaction type:" seen: the final report was printed */

    struct bench_pgbench_statement *statements;
    size_t nstatements;
    size_t statements_dropped;
    struct bench_pgbench_script_stats *scripts;
    size_t nscripts;

    char **errors; /* "pgbench: error: ..." / "... aborted ..." / "FATAL" lines, prefix kept */
    size_t nerrors;
    size_t errors_dropped;

    struct bench_timeline_point *timeline; /* progress lines in order */
    size_t ntimeline;
    size_t timeline_dropped;

    size_t lines;         /* lines seen */
    size_t lines_unknown; /* lines not understood (ignored) */

    /* private parse state */
    struct bench_pgbench_parse_state *priv;
};

enum bench_stream { BENCH_STREAM_STDOUT = 0, BENCH_STREAM_STDERR = 1 };

/* New empty result (all numbers absent). Never NULL: allocation failure aborts (pkg/util/mem.h),
 * so neither the constructor nor the feeders below fail for memory. */
struct bench_pgbench_result *bench_pgbench_result_new(void);
void bench_pgbench_result_free(struct bench_pgbench_result *r);

/* Feeds a chunk of the child's stdout or stderr; lines are split per stream, so the two streams
 * may be fed interleaved as they arrive. Progress lines are appended to r->timeline at once, so
 * a caller can read the live timeline between feeds. Lines longer than BENCH_PGBENCH_MAX_LINE
 * are truncated. Returns 0, or -EINVAL for a stream other than the two. */
int bench_pgbench_feed(struct bench_pgbench_result *r, enum bench_stream stream, const char *data,
                       size_t len);
/* Flushes partial lines of both streams. Call once after the child exited. */
void bench_pgbench_finish(struct bench_pgbench_result *r);
/* One-shot: new + feed(STDOUT, text) + finish. The caller frees the result (never NULL). */
struct bench_pgbench_result *bench_pgbench_parse(const char *text, size_t len);

/* ---------------------------------------------------------------------------------------------
 * Per-transaction log (-l) parser
 * ------------------------------------------------------------------------------------------- */

/* One line of a pgbench -l log (pgbench 12-17, non-aggregated):
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
 * time is the latency in us, or "failed" (>= 15) / "skipped" (-R -L). */
enum bench_txlog_status { BENCH_TX_OK = 0, BENCH_TX_FAILED, BENCH_TX_SKIPPED };
struct bench_txlog_entry {
    int client;
    int64_t transaction;
    enum bench_txlog_status status; /* "failed", "serialization", "deadlock" -> FAILED */
    int64_t latency_us;             /* -1 unless OK */
    int script;
    int64_t epoch_us; /* time_epoch * 1e6 + time_us: when the transaction completed */
    int64_t lag_us;   /* schedule lag, -1 when absent */
    int64_t retries;  /* -1 when absent */
};

/* Parses one log line. With one optional column after time_us it is the schedule lag when
 * rate_limited (the run used -R), else retries; with two, lag then retries. Returns 0, or
 * -EINVAL when malformed (including the --aggregate-interval format, which is not supported). */
int bench_txlog_parse_line(const char *line, size_t len, bool rate_limited,
                           struct bench_txlog_entry *out);

/* Accumulates -l log lines into a histogram of successful transactions' latencies and, once
 * bench_txlog_start was called, the latency series over time (latseries.h). With a warm-up cut
 * (cut_epoch_us > 0) transactions that completed before it are counted in warm_ok/warm_failed
 * only: hist, ok, failed, skipped and retries cover the steady window; the series has them all. */
struct bench_txlog {
    struct bench_hist *hist;        /* owned; latencies of OK transactions, us */
    bool rate_limited;              /* set before feeding when the run used -R (see parse_line) */
    struct bench_latseries *series; /* owned; NULL until the first line after bench_txlog_start */
    bool keep_series;               /* bench_txlog_start was called */
    int64_t warmup_us;              /* bench_txlog_start's warm-up */
    int64_t cut_epoch_us;           /* warm-up cut, epoch us; 0 = none (yet) */
    uint64_t warm_ok, warm_failed;  /* transactions before the cut */
    uint64_t ok, failed, skipped, malformed;
    uint64_t retries;              /* sum of the retries column where present */
    int64_t first_epoch_us;        /* earliest completion time, -1 when none */
    int64_t last_epoch_us;         /* latest completion time, -1 when none */
    struct bench_txlog_line *priv; /* partial-line buffer */
};

/* Never NULL (allocation failure aborts, pkg/util/mem.h). bench_txlog_free(NULL) is a no-op. */
struct bench_txlog *bench_txlog_new(void);
void bench_txlog_free(struct bench_txlog *l);
/* Keeps the latency series, and with warmup_s > 0 a warm-up cut, from now on. Call before feeding.
 * Both count from t = 0, the start of the first logged transaction (its completion time minus its
 * latency): pgbench's benchmark start, after its connections and vacuum, as -P counts. */
void bench_txlog_start(struct bench_txlog *l, double warmup_s);
/* Chunked input; lines split internally (one partial line kept, capped at 4 KiB; a longer line
 * counts as malformed). Cannot fail. */
void bench_txlog_feed(struct bench_txlog *l, const char *data, size_t len);
void bench_txlog_finish(struct bench_txlog *l);
/* Reads one file completely (feed + finish). Returns 0 or -errno (open/read). */
int bench_txlog_read_file(struct bench_txlog *l, const char *path);
/* Reads every regular file in dir whose name starts with "<prefix>." (pgbench writes
 * <prefix>.<pid> and <prefix>.<pid>.<thread>). prefix NULL = BENCH_PGBENCH_LOG_PREFIX.
 * *nfiles (may be NULL) gets the number of files read. Returns 0 or -errno. */
int bench_txlog_read_dir(struct bench_txlog *l, const char *dir, const char *prefix,
                         size_t *nfiles);

#endif
