/* Shared pieces of the pgbench-runner program: environment helpers, output of the result
 * (stdout last line, stderr summary, termination log) and the subcommands. */
#ifndef PGBO_RUNNER_RUNNER_H
#define PGBO_RUNNER_RUNNER_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "pkg/bench/result.h"
#include "pkg/pg/pg_conn.h"

/* Connection flags shared by the subcommands that talk to PostgreSQL. They are exported into
 * the environment (PGHOST, ...) so that libpq in this process and the pgbench child agree. */
struct runner_conn_flags {
    const char *host, *port, *dbname, *user, *sslmode, *sslrootcert;
};
void runner_conn_apply_env(const struct runner_conn_flags *f);
/* No input is trusted: the host, database and user pgbench will connect with (each flag, else
 * its PG* variable; pgbench also takes PGUSER as its database when PGDATABASE is unset) must be a
 * name or address, never a libpq connection string that pgbench would expand over the runner's
 * settings (bench_conn_check_name / bench_conn_check_host). Returns 0, or -EINVAL with msg
 * naming the flag or variable and why (the caller exits 1). */
int runner_conn_check(const struct runner_conn_flags *f, char *msg, size_t n);

/* Set to the signal number by the early SIGTERM/SIGINT handler (before the libuv loop takes the
 * signals over), so that blocking waits can stop and a result is still printed. */
extern volatile sig_atomic_t runner_stop_signal;
void runner_install_early_signals(void);

/* JOB_COMPLETION_INDEX, or -1 when unset/invalid. */
int runner_worker_index(void);
/* This worker's share of the clients from BENCH_CLIENTS_BY_INDEX ("3,2,2": entry
 * JOB_COMPLETION_INDEX), which the operator sets when it splits clients over workers. Returns
 * the share, `clients` itself when the variable is unset, or -1 with msg set when the list is
 * malformed or has no entry for this worker. */
int runner_clients_for_worker(int clients, char *msg, size_t n);
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

int runner_cmd_pgbench_init(int argc, char **argv);
int runner_cmd_pgbench_run(int argc, char **argv);
int runner_cmd_fio(int argc, char **argv);

#endif
