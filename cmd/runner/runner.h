/* Shared pieces of the pgbench-runner program: environment helpers, output of the result
 * (stdout last line, stderr summary, termination log) and the subcommands. */
#ifndef PGBO_RUNNER_RUNNER_H
#define PGBO_RUNNER_RUNNER_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cmd/runner/child.h"
#include "pkg/bench/argv.h"
#include "pkg/bench/result.h"
#include "pkg/bench/runner_args.h"
#include "pkg/pg/pg_conn.h"

/* Exports the connection flags as PGHOST ... (the unset ones are left alone), so that libpq in
 * this process and the pgbench child agree. */
void runner_conn_apply_env(const struct bench_conninfo *ci);
/* No input is trusted: the host, database and user pgbench will connect with (each flag, else
 * its PG* variable; pgbench also takes PGUSER as its database when PGDATABASE is unset) must be a
 * name or address, never a libpq connection string that pgbench would expand over the runner's
 * settings (bench_conn_check_name / bench_conn_check_host). Returns 0, or -EINVAL with msg
 * naming the flag or variable and why (the caller exits 1). */
int runner_conn_check(const struct bench_conninfo *ci, char *msg, size_t n);

/* Installs the early SIGTERM/SIGINT handler that sets runner_stop_signal (child.h). */
void runner_install_early_signals(void);

/* JOB_COMPLETION_INDEX, or -1 when unset/invalid. */
int runner_worker_index(void);
/* This worker's share of the clients from BENCH_CLIENTS_BY_INDEX ("3,2,2": entry
 * JOB_COMPLETION_INDEX), which the operator sets when it splits clients over workers. Returns
 * the share, `clients` itself when the variable is unset, or -1 with msg set when the list is
 * malformed or has no entry for this worker. */
int runner_clients_for_worker(int clients, char *msg, size_t n);
/* This worker's share of the rate (tps) from BENCH_RATE_BY_INDEX ("250.25,250.25"), which the
 * operator sets when it splits the rate over workers as it splits clients. Returns the share,
 * `rate` itself when the variable is unset, or -1 with msg set. */
double runner_rate_for_worker(double rate, char *msg, size_t n);
/* Where the compact summary goes: BENCH_TERMINATION_LOG, else SIM_TERMINATION_MESSAGE_PATH,
 * else /dev/termination-log when it exists and is writable; NULL when none. */
const char *runner_termination_path(void);

/* Writes the human summary to stderr, the compact summary to the termination log and then the
 * result as one line on stdout (always the last thing printed). Frees nothing. */
void runner_emit(const cJSON *result);

/* A result for a run that could not start: kind, exit code and one error message. Emits it and
 * returns exit_code. */
int runner_fail(const char *kind, int exit_code, double start_time, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A connection failure as an error line: "cannot connect to host:port/db (refused): message". */
void runner_conn_error_text(const struct pg_error *err, char *dst, size_t n);

/* Reads all of stdin (up to cap bytes). Returns 0 or a negative errno. */
int runner_read_stdin(size_t cap, char **out, size_t *len);

/* A new private directory $TMPDIR/pgbench-runner.XXXXXX (/tmp without TMPDIR) into out (at least
 * 64 bytes): where the tools write their logs. Returns 0, or -errno with out set to "". */
int runner_temp_dir(char *out, size_t n);
/* Removes dir and the files in it (not subdirectories); errors are ignored. */
void runner_remove_dir(const char *dir);

/* One subcommand's run, one function per phase: options (flags and the tool's command line),
 * connect (readiness, the database created when asked), prepare (what the load needs: checks,
 * server settings, replication catch-up, samplers), barrier (the start time), load (the tool
 * through the child driver), collect (the outcome and the exit code), report (the result). Each
 * subcommand keeps its own state in a struct that embeds this one; a phase returns 0 to go on or
 * -1 when the run is over with exit_code (its result already emitted). */
struct run_ctx {
    const char *kind;          /* the result's kind: "pgbench-init", "pgbench", "fio" */
    enum bench_runner_cmd cmd; /* the flag table */
    double start;              /* wall clock at the start: the result's startTime */
    int exit_code;
    char msg[1024];           /* scratch for one message */
    struct bench_argv argv;   /* the tool's command line */
    struct child_drive drive; /* the tool as a child */
    PGconn *conn;             /* the runner's own connection (pgbench), NULL when closed */
    char *app;                /* PGAPPNAME of the load (pgbench) */
    cJSON *result;            /* built by collect/report, emitted by run_emit */
};

/* Starts ctx for a subcommand (kind, cmd, start time; exit code usage until a phase sets it). */
void run_ctx_init(struct run_ctx *c, const char *kind, enum bench_runner_cmd cmd);
/* The options phase's parse of the flags into args (the subcommand's struct) from the flag table.
 * Returns 0 to go on, or -1 after --help (usage on stdout, exit 0) or a usage error (emitted). */
int run_parse_flags(struct run_ctx *c, int argc, char **argv, void *args);
/* A run that cannot go on: emits a result with this one error (runner_fail), sets exit_code and
 * returns -1. */
int run_fail(struct run_ctx *c, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The result of a run that got as far as collect: meta from ctx and these. Aborts when out of
 * memory (like every result builder of the runner). */
void run_result_new(struct run_ctx *c, int child_exit, bool complete, const char *user);
/* Adds one formatted error to the result. */
void run_add_error(struct run_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds the last n non-empty lines of text (a child's stderr tail) as errors, each cut to max_len
 * bytes, after prefix. */
void run_add_last_lines(struct run_ctx *c, const char *text, int n, const char *prefix,
                        size_t max_len);
/* The report phase's end: emits the result (runner_emit) and frees it. */
void run_emit(struct run_ctx *c);
/* Frees what ctx owns (argv, connection, appname, result, the drive's stderr tail). */
void run_ctx_free(struct run_ctx *c);

int runner_cmd_pgbench_init(int argc, char **argv);
int runner_cmd_pgbench_run(int argc, char **argv);
int runner_cmd_fio(int argc, char **argv);

#endif
