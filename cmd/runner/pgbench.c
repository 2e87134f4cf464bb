/* `pgbench init` and `pgbench run`, phase by phase (struct run_ctx): options, connect (readiness,
 * the database created when asked), prepare, barrier (BENCH_START_AT / BENCH_START_AT_FILE),
 * load (pgbench through the child driver, with live progress parsing and libpq diagnostics),
 * collect, report (one result). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "cmd/runner/child.h"
#include "cmd/runner/runner.h"
#include "cmd/runner/txstream.h"
#include "pkg/util/mem.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/bench/verdict.h"
#include "pkg/pg/pg.h"
#include "pkg/pg/pg_stats.h"
#include "pkg/util/buf.h"
#include "pkg/util/cgroup.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"
#include "pkg/util/log.h"

#define STDERR_KEEP ((size_t)64 * 1024)

/* ---------------------------------------------------------------------------------------------
 * Shared by init and run
 * ------------------------------------------------------------------------------------------- */

/* The readiness window: --wait-timeout, counted from --wait-from when given (the time this
 * node's clock has passed since then, clamped to 0..the window: a clock behind the API server's
 * gives the whole window from now, one ahead shortens it, to a single try at worst). */
static struct pg_wait wait_window(const struct bench_runner_common *co)
{
    struct pg_wait w = {.timeout_s = co->wait_timeout_s};
    if (!co->wait_from)
        return w;
    double spent = util_wall_s() - util_rfc3339_parse(co->wait_from);
    w.spent_s = spent < 0 ? 0 : (spent > w.timeout_s ? w.timeout_s : spent);
    w.stop_early_s = BENCH_WAIT_REPORT_S;
    return w;
}

/* Connects for the runner's own use (readiness + diagnostics) as the load will (the flags are in
 * the environment by now), creating the database when asked. Returns 0 with c->conn, or -1 when
 * the run is over (its result emitted). */
static int connect_target(struct run_ctx *c, const struct bench_runner_common *co,
                          const char *appname)
{
    struct bench_conninfo ci = {.appname = appname, .cancel = &runner_stop_signal};
    struct pg_error err;
    struct pg_wait w = wait_window(co);
    int rc = pg_wait_ready(&ci, &w, &c->conn, &err);
    if (rc == -ECONNREFUSED && err.cls == PG_ERR_DATABASE && co->create_database) {
        bool created = false;
        struct pg_error cerr;
        rc = pg_create_database(&ci, &created, &cerr);
        if (rc)
            return run_fail(c, cerr.cls == PG_ERR_OTHER ? BENCH_EXIT_USAGE : BENCH_EXIT_UNREACHABLE,
                            "cannot create the database on %.200s (%s): %.600s", err.target,
                            pg_error_class_name(cerr.cls), cerr.message);
        w = wait_window(co);
        rc = pg_wait_ready(&ci, &w, &c->conn, &err);
    }
    if (rc == -ECANCELED)
        return run_fail(c, BENCH_EXIT_PARTIAL,
                        "terminated by signal %d while waiting for %.200s (last error: %s)",
                        (int)runner_stop_signal, err.target, pg_error_class_name(err.cls));
    if (rc) {
        runner_conn_error_text(&err, c->msg, sizeof(c->msg));
        return run_fail(c, BENCH_EXIT_UNREACHABLE, "%s", c->msg);
    }
    return 0;
}

/* The options phase's connection part: the flags checked (no connection string may hide in a
 * name) and exported as PG* for libpq here and in pgbench. */
static int conn_options(struct run_ctx *c, const struct bench_runner_common *co)
{
    if (runner_conn_check(&co->conn, c->msg, sizeof(c->msg)))
        return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
    if (co->wait_from && util_rfc3339_parse(co->wait_from) < 0)
        return run_fail(c, BENCH_EXIT_USAGE,
                        "--wait-from \"%.64s\": expected an RFC 3339 time such as "
                        "2026-12-07T23:00:00Z",
                        co->wait_from);
    return 0;
}

static const char *pgbench_path(void)
{
    const char *p = getenv("PGBENCH");
    return p && *p ? p : "pgbench";
}

/* The pgbench binary's major version (decides --max-tries / --failures-detailed, and whether the
 * init can generate server-side). Returns 0 with *major, or -1 when the run is over. */
static int pgbench_major(struct run_ctx *c, const char *path, int *major)
{
    char *out = NULL;
    int status = -1;
    char *vargv[] = {(char *)path, "--version", NULL};
    int rc = child_run_capture(vargv, 4096, &out, &status);
    if (rc || status != 0)
        return run_fail(c, BENCH_EXIT_USAGE, "cannot run %s --version: %s", path,
                        rc ? uv_strerror(rc) : "non-zero exit");
    *major = bench_pgbench_version_major(out);
    free(out);
    if (*major < 0)
        return run_fail(c, BENCH_EXIT_USAGE, "cannot read the version of %s", path);
    return 0;
}

/* "pgbench-runner<what>:<worker>:<token>": unique per process (pods all have pid 1, so the
 * token is random), the same token for the load and the diagnostics connection. */
static char *make_appname(const char *what)
{
    static unsigned token;
    if (!token) {
        if (getentropy(&token, sizeof(token)) != 0)
            token = (unsigned)(util_wall_s() * 1e6) ^ ((unsigned)getpid() << 16);
        token |= 1;
    }
    char *s = util_xmalloc(96);
    (void)snprintf(s, 96, "pgbench-runner%s:%d:%08x", what, runner_worker_index(), token);
    return s;
}

/* A Unix time from the environment; 0 when unset, or (with a warning) not a Unix time. */
static double env_unix_time(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    double t = strtod(v, &end);
    if (*end || end == v || !(t > 0)) {
        log_warn("runner", "ignoring %s=%s: not a Unix time", name, v);
        return 0;
    }
    return t;
}

/* ---------------------------------------------------------------------------------------------
 * The barrier: BENCH_START_AT, else the time polled from BENCH_START_AT_FILE, else now; then the
 * drive starts. The drive's on_end closes it (barrier_close).
 * ------------------------------------------------------------------------------------------- */

struct barrier {
    struct child_drive *drive;
    uv_timer_t timer;
    double at;              /* the start time, 0 = none */
    double seen;            /* when it was read from BENCH_START_AT_FILE, 0 = not from there */
    const char *start_file; /* BENCH_START_AT_FILE while it is polled, else NULL */
    bool never;             /* the deadline came before the start time did */
};

static void on_barrier(uv_timer_t *t)
{
    struct barrier *b = t->data;
    (void)child_drive_start(b->drive);
}

/* The start time in a BENCH_START_AT_FILE: RFC 3339 or Unix seconds, surrounding white space
 * ignored. 0 while the file is missing or empty (not published yet), -1 when it holds something
 * else. */
static double start_file_read(const char *path)
{
    char text[128];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    (void)fclose(f);
    text[n] = '\0';
    char *b = text, *e = text + n;
    while (*b && strchr(" \t\r\n", *b))
        b++;
    while (e > b && strchr(" \t\r\n", e[-1]))
        *--e = '\0';
    if (!*b)
        return 0;
    double t = util_rfc3339_parse(b);
    if (t > 0)
        return t;
    char *end;
    t = strtod(b, &end);
    return *end || !(t > 0) ? -1 : t;
}

/* Arms the barrier timer for the start time `when` (Unix seconds, from where). */
static void barrier_arm(struct barrier *b, double when, const char *where)
{
    b->at = when;
    double delay = when - util_wall_s();
    char ts[40];
    util_rfc3339(when, 3, ts, sizeof(ts));
    if (delay > 0)
        log_info("runner", "start barrier: waiting %.3f s until %s (%s)", delay, ts, where);
    else
        log_warn("runner", "start barrier %s (%s) already passed %.3f s ago; starting now", ts,
                 where, -delay);
    (void)uv_timer_start(&b->timer, on_barrier, delay > 0 ? (uint64_t)(delay * 1000.0 + 0.5) : 0,
                         0);
}

/* Polls BENCH_START_AT_FILE (a downwardAPI file of the pod's start-at annotation, which the
 * operator sets once every worker is ready) until it holds the start time, or the run's deadline
 * passes. */
static void on_start_poll(uv_timer_t *t)
{
    struct barrier *b = t->data;
    if (b->drive->ended)
        return;
    double when = start_file_read(b->start_file);
    if (when > 0) {
        b->seen = util_wall_s();
        barrier_arm(b, when, b->start_file);
        b->start_file = NULL;
        return;
    }
    if (when < 0) {
        log_warn("runner",
                 "BENCH_START_AT_FILE %s does not hold a time (RFC 3339 or Unix "
                 "seconds); waiting for another",
                 b->start_file);
    }
    double deadline = b->drive->deadline_at;
    if (deadline > 0 && util_wall_s() >= deadline) {
        log_error("runner", "no start time in %s by the run's deadline (BENCH_DEADLINE_AT)",
                  b->start_file);
        b->never = true;
        child_drive_end(b->drive);
    }
}

/* The barrier phase: after child_drive_init (and the drive's deadline), before the loop runs. A
 * signal that came before ends the drive without a start. */
static void barrier_begin(struct barrier *b, struct child_drive *d)
{
    b->drive = d;
    (void)uv_timer_init(d->loop, &b->timer);
    b->timer.data = b;
    if (child_drive_early_signal(d))
        return;
    double when = env_unix_time("BENCH_START_AT");
    const char *file = getenv("BENCH_START_AT_FILE");
    if (when > 0) {
        barrier_arm(b, when, "BENCH_START_AT");
    } else if (file && *file) {
        /* BENCH_START_POLL_MS: how often the file is read (default 20: the operator's start
         * margin counts it) */
        const char *e = getenv("BENCH_START_POLL_MS");
        long ms = e && *e ? strtol(e, NULL, 10) : BENCH_START_POLL_MS;
        b->start_file = file;
        log_info("runner", "waiting for the start time in %s", file);
        (void)uv_timer_start(&b->timer, on_start_poll, 0,
                             (uint64_t)(ms > 0 ? ms : BENCH_START_POLL_MS));
    } else {
        (void)uv_timer_start(&b->timer, on_barrier, 0, 0);
    }
}

static void barrier_close(struct barrier *b)
{
    uv_close((uv_handle_t *)&b->timer, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * pgbench init
 * ------------------------------------------------------------------------------------------- */

/* How often the server-side generation's progress is sampled (pg_database_size). */
#define INIT_SIZE_POLL_MS 1000

struct init_ctx {
    struct run_ctx c;
    struct bench_runner_init ra; /* owns nothing */
    struct bench_pgbench_init_opts io;
    char user[64];    /* the role libpq connected as (PGUSER, maybe from a Secret) */
    char reason[512]; /* why the tables are (not) initialized */
    char steps[48];   /* the -I steps pgbench runs */
    bool initialized;
    struct barrier barrier;
    /* progress: pgbench's step and rows lines; while it generates server-side, the database's
     * growth since the step began (c.conn stays open for it) */
    struct bench_init_progress pr;
    uv_timer_t size_timer;
    double gen_start;      /* wall clock when the generation step began, 0 = not yet */
    double size0;          /* database bytes then */
    int block_size;        /* the server's, for the row estimate */
    long long server_rows; /* the estimate so far */
    bool size_polling;
};

/* The init options refused by the flag that set them: "--init-steps \"dtxp\": use ...". */
static int init_check(struct init_ctx *in)
{
    static const size_t offs[] = {
        [BENCH_INIT_F_GENERATION] = offsetof(struct bench_runner_init, pg.generation),
        [BENCH_INIT_F_STEPS] = offsetof(struct bench_runner_init, pg.steps),
        [BENCH_INIT_F_FILLFACTOR] = offsetof(struct bench_runner_init, pg.fillfactor),
        [BENCH_INIT_F_TABLESPACE] = offsetof(struct bench_runner_init, pg.tablespace),
        [BENCH_INIT_F_INDEX_TABLESPACE] = offsetof(struct bench_runner_init, pg.index_tablespace),
    };
    enum bench_init_field which = BENCH_INIT_F_NONE;
    char why[512];
    if (bench_pgbench_init_check(&in->io, &which, why, sizeof(why)) == 0)
        return 0;
    return run_fail(&in->c, BENCH_EXIT_USAGE, "--%s %s",
                    bench_runner_flag(BENCH_RUNNER_PGBENCH_INIT, offs[which]), why);
}

static int init_options(struct init_ctx *in, int argc, char **argv)
{
    struct run_ctx *c = &in->c;
    if (run_parse_flags(c, argc, argv, &in->ra) || conn_options(c, &in->ra.common))
        return -1;
    in->io = in->ra.pg;
    in->io.pgbench_path = pgbench_path();
    in->io.quiet = true;
    if (pgbench_major(c, in->io.pgbench_path, &in->io.pgbench_major) || init_check(in))
        return -1;
    bench_pgbench_init_steps(&in->io, in->steps, sizeof(in->steps));
    if (bench_pgbench_init_argv(&in->io, &c->argv, c->msg, sizeof(c->msg)) != 0)
        return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
    log_info("runner", "pgbench %d: init steps %s (%s-side generation)", in->io.pgbench_major,
             in->steps, strchr(in->steps, 'G') ? "server" : "client");
    return 0;
}

static int init_connect(struct init_ctx *in)
{
    struct run_ctx *c = &in->c;
    runner_conn_apply_env(&in->ra.common.conn);
    c->app = make_appname("-init");
    (void)setenv("PGAPPNAME", c->app, 1);
    if (connect_target(c, &in->ra.common, c->app))
        return -1;
    const char *user = PQuser(c->conn);
    (void)snprintf(in->user, sizeof(in->user), "%s", user ? user : "");
    return 0;
}

/* --skip-if-initialized: tables of this scale already there end the run with a result. The
 * connection stays open for the server-side generation's progress. */
static int init_prepare(struct init_ctx *in)
{
    struct run_ctx *c = &in->c;
    if (in->ra.skip_if_initialized) {
        int rc = pg_pgbench_initialized(c->conn, in->io.scale, in->io.partitions, &in->initialized,
                                        in->reason, sizeof(in->reason));
        if (rc)
            log_warn("runner", "%s; initializing", in->reason);
    }
    if (!in->initialized) {
        if (!strchr(in->steps, 'G')) {
            PQfinish(c->conn);
            c->conn = NULL;
        }
        if (in->ra.skip_if_initialized && in->reason[0])
            log_info("runner", "initializing: %s", in->reason);
        return 0;
    }
    log_info("runner", "skipping init: %s", in->reason);
    c->exit_code = BENCH_EXIT_OK;
    run_result_new(c, -1, true, in->user[0] ? in->user : NULL);
    struct bench_init_outcome o = {.skipped = true,
                                   .complete = true,
                                   .scale = in->io.scale,
                                   .duration_s = util_wall_s() - c->start,
                                   .why = in->reason};
    bench_result_add_init(c->result, &o);
    run_emit(c);
    return -1;
}

/* One progress record (rows "progress.*" of the result contract) of where pgbench -i is: its step,
 * and while it generates the rows so far, with where that figure comes from. */
static void init_progress_log(struct init_ctx *in)
{
    const struct child_drive *d = &in->c.drive;
    const struct bench_init_progress *p = &in->pr;
    bool server = strchr(in->steps, 'G') != NULL;
    long long total = bench_init_accounts_rows(in->io.scale);
    long long rows = server ? in->server_rows : p->rows;
    bool generating =
        p->step == BENCH_INIT_STEP_GENERATE_CLIENT || p->step == BENCH_INIT_STEP_GENERATE_SERVER;
    if (p->step > BENCH_INIT_STEP_GENERATE_SERVER && in->gen_start > 0)
        rows = total; /* pgbench went on: every row is in */
    double now = util_wall_s(), t = d->started ? now - d->start : 0;
    double gen_s = in->gen_start > 0 ? now - in->gen_start : 0;
    if (!server && p->rows_total > 0)
        gen_s = p->elapsed_s;
    cJSON *o = cJSON_CreateObject();
    (void)bench_put_key(o, BK_PROGRESS_T, cJSON_CreateNumber(round(t * 10) / 10));
    (void)bench_put_key(o, BK_PROGRESS_STEP, cJSON_CreateString(bench_init_step_name(p->step)));
    if (in->gen_start > 0 || (generating && p->rows_total > 0)) {
        (void)bench_put_key(o, BK_PROGRESS_ROWS, cJSON_CreateNumber((double)rows));
        (void)bench_put_key(o, BK_PROGRESS_ROWS_TOTAL, cJSON_CreateNumber((double)total));
        if (generating && gen_s > 0 && rows > 0)
            (void)bench_put_key(o, BK_PROGRESS_ROWS_PER_SECOND,
                                cJSON_CreateNumber(round((double)rows / gen_s)));
        (void)bench_put_key(o, BK_PROGRESS_SOURCE,
                            cJSON_CreateString(server ? "database size" : "pgbench"));
    }
    char *rec = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    log_record(LOG_INFO, "pgbench", bench_key(BK_PROGRESS), rec,
               "init progress: %s, %lld of %lld rows", bench_init_step_name(p->step), rows, total);
    free(rec);
}

/* Server-side generation: the database's growth since the step began, as rows of
 * pgbench_accounts (bench_init_rows_from_bytes); an estimate, capped at the total. */
static void on_size_poll(uv_timer_t *t)
{
    struct init_ctx *in = t->data;
    double bytes = 0;
    int bs = 0;
    char msg[256];
    if (!in->c.conn || pg_database_bytes(in->c.conn, &bytes, &bs, msg, sizeof(msg)) != 0) {
        log_warn("runner", "server-side generation: no progress, cannot read the database size: %s",
                 in->c.conn ? msg : "no connection");
        (void)uv_timer_stop(t);
        return;
    }
    if (!in->size_polling) { /* the first sample is the baseline */
        in->size_polling = true;
        in->size0 = bytes;
        in->block_size = bs;
        return;
    }
    long long total = bench_init_accounts_rows(in->io.scale);
    double rows = bench_init_rows_from_bytes(bytes - in->size0, in->io.fillfactor, in->block_size);
    in->server_rows = rows < (double)total ? (long long)rows : total;
    init_progress_log(in);
}

/* Each line of pgbench -i: a step or rows line is progress; the server-side generation step
 * starts the size sampling, the next step stops it. */
static void init_on_line(struct child_drive *d, int stream, const char *line, size_t len)
{
    struct init_ctx *in = d->ctx;
    (void)stream;
    enum bench_init_step before = in->pr.step;
    if (!bench_init_progress_line(&in->pr, line, len))
        return;
    enum bench_init_step now = in->pr.step;
    if (now != before &&
        (now == BENCH_INIT_STEP_GENERATE_CLIENT || now == BENCH_INIT_STEP_GENERATE_SERVER))
        in->gen_start = util_wall_s();
    if (now != before && now == BENCH_INIT_STEP_GENERATE_SERVER && in->c.conn) {
        on_size_poll(&in->size_timer); /* the baseline */
        (void)uv_timer_start(&in->size_timer, on_size_poll, INIT_SIZE_POLL_MS, INIT_SIZE_POLL_MS);
    } else if (now != before && before == BENCH_INIT_STEP_GENERATE_SERVER) {
        (void)uv_timer_stop(&in->size_timer);
    }
    init_progress_log(in);
}

static void init_on_end(struct child_drive *d)
{
    struct init_ctx *in = d->ctx;
    barrier_close(&in->barrier);
    uv_close((uv_handle_t *)&in->size_timer, NULL);
    PQfinish(in->c.conn);
    in->c.conn = NULL;
}

static void init_load(struct init_ctx *in)
{
    static const struct child_drive_hooks hooks = {.on_end = init_on_end, .on_line = init_on_line};
    struct child_drive *d = &in->c.drive;
    child_drive_init(d, uv_default_loop(), in->c.argv.argv, &hooks, in);
    d->err_keep = STDERR_KEEP;
    d->echo = true;
    (void)uv_timer_init(d->loop, &in->size_timer);
    in->size_timer.data = in;
    barrier_begin(&in->barrier, d);
    child_drive_run(d);
}

/* Error-looking lines of pgbench's stderr (up to 20); when it failed and none matched, its last
 * 5 lines. */
static void add_stderr_errors(struct run_ctx *c, const char *text, bool failed)
{
    int added = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && (memmem(p, len, "error", 5) || memmem(p, len, "FATAL", 5) ||
                    memmem(p, len, "ERROR", 5))) {
            if (added < 20)
                run_add_error(c, "%.*s", (int)(len < 511 ? len : 511), p);
            added++;
        }
        p = e ? e + 1 : NULL;
    }
    if (failed && !added)
        run_add_last_lines(c, text, 5, "", 511);
}

static void init_collect(struct init_ctx *in)
{
    struct run_ctx *c = &in->c;
    const struct child_drive *d = &c->drive;
    int child_exit = -1;
    bool complete = false;
    if (d->spawn_error) {
        c->exit_code = BENCH_EXIT_USAGE;
    } else if (d->child.term_signal || d->child.exit_status != 0 || d->signal) {
        c->exit_code = BENCH_EXIT_PARTIAL;
        child_exit = d->child.term_signal ? -1 : (int)d->child.exit_status;
        if (d->err.data && strstr(d->err.data, "connection to server"))
            c->exit_code = BENCH_EXIT_UNREACHABLE;
    } else {
        c->exit_code = BENCH_EXIT_OK;
        child_exit = 0;
        complete = true;
    }
    run_result_new(c, child_exit, complete, in->user[0] ? in->user : NULL);
}

static void init_report(struct init_ctx *in)
{
    struct run_ctx *c = &in->c;
    const struct child_drive *d = &c->drive;
    bool complete = c->exit_code == BENCH_EXIT_OK;
    struct bench_init_outcome o = {.complete = complete,
                                   .scale = in->io.scale,
                                   .duration_s = d->end - d->start,
                                   .why = in->reason,
                                   .steps = in->steps};
    bench_result_add_init(c->result, &o);
    if (d->spawn_error)
        run_add_error(c, "cannot start %s: %s", in->io.pgbench_path, uv_strerror(d->spawn_error));
    if (d->signal)
        run_add_error(c, "terminated by signal %d during init", d->signal);
    add_stderr_errors(c, d->err.data, !complete);
    run_emit(c);
}

int runner_cmd_pgbench_init(int argc, char **argv)
{
    struct init_ctx *in = util_xcalloc(1, sizeof(*in));
    run_ctx_init(&in->c, "pgbench-init", BENCH_RUNNER_PGBENCH_INIT);
    if (init_options(in, argc, argv) == 0 && init_connect(in) == 0 && init_prepare(in) == 0) {
        init_load(in);
        init_collect(in);
        init_report(in);
    }
    int exit_code = in->c.exit_code;
    run_ctx_free(&in->c);
    free(in);
    return exit_code;
}

/* ---------------------------------------------------------------------------------------------
 * pgbench run
 * ------------------------------------------------------------------------------------------- */

/* Members ordered by alignment (pointers and 8-byte members, then structs, then ints, bools and
 * char arrays) so the struct carries no padding. */
struct pgrun_ctx {
    char *diag_app;
    struct bench_pgbench_result *pg; /* the load: pgbench's output, parsed as it arrives */
    size_t timeline_logged;
    int64_t failed_total; /* failed transactions in the progress lines so far */
    struct pg_diag *diag;
    /* the verdict's evidence (pkg/bench/verdict.def): SELECT 1 before the load; NAN when not probed
     */
    double rtt_ms;
    struct bench_txlog *tl;   /* -l logs -> histogram, read every second while the run goes on */
    struct rusage ru0, self0; /* the children's and the runner's CPU when pgbench started */
    struct util_sched sched;  /* pgbench's threads' scheduler times, last read (sched_at) */
    double sched_at;
    uv_timer_t txtimer;
    struct bench_pgbench_run_opts ro; /* its scripts point into ra */
    struct barrier barrier;
    struct pg_stats_snap st0, st1; /* server counters around the load */
    struct pg_replica_wait rw;
    struct bench_runner_run ra; /* owns the builtin name and the script paths */
    struct pg_server_info si;
    struct run_ctx c;
    struct pg_wait_tally waits; /* copied from diag at the end */
    struct pg_lag_samples lag;
    struct txstream ts;
    int diag_skipped;
    int child_exit; /* collected when pgbench exits */
    bool have_si;
    bool replica_waited;
    bool tls; /* the runner's connection (pgbench's alike) used TLS */
    bool have_st0, have_st1;
    bool ts_open;
    bool complete;
    char diag_error[256];
    char logdir[4096]; /* pgbench's -l logs, removed at the end; "" when none */
};

/* Options: the flags, the scripts readable, this worker's share of the clients and the rate. */
static int pgrun_options(struct pgrun_ctx *r, int argc, char **argv)
{
    struct run_ctx *c = &r->c;
    if (run_parse_flags(c, argc, argv, &r->ra) || conn_options(c, &r->ra.common))
        return -1;
    r->ro = r->ra.pg;
    r->ro.pgbench_path = pgbench_path();
    for (size_t i = 0; i < r->ro.nscripts; i++)
        if (access(r->ro.scripts[i].path, R_OK) != 0)
            return run_fail(c, BENCH_EXIT_USAGE, "--%s: cannot read %s: %s",
                            bench_runner_flag(BENCH_RUNNER_PGBENCH_RUN,
                                              offsetof(struct bench_runner_run, pg.scripts)),
                            r->ro.scripts[i].path, strerror(errno));
    int share = runner_clients_for_worker(r->ro.clients, c->msg, sizeof(c->msg));
    if (share < 0)
        return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
    r->ro.clients = share;
    if (r->ro.rate > 0) {
        double rate = runner_rate_for_worker(r->ro.rate, c->msg, sizeof(c->msg));
        if (rate < 0)
            return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
        r->ro.rate = rate;
    }
    return 0;
}

/* Options, the command line: the pgbench binary's version (decides --max-tries /
 * --failures-detailed), a directory for the transaction logs, then pgbench's argv. */
static int pgrun_command_line(struct pgrun_ctx *r)
{
    struct run_ctx *c = &r->c;
    if (pgbench_major(c, r->ro.pgbench_path, &r->ro.pgbench_major))
        return -1;

    int trc = runner_temp_dir(r->logdir, sizeof(r->logdir));
    if (trc)
        return run_fail(c, BENCH_EXIT_USAGE, "cannot create a directory for transaction logs: %s",
                        strerror(-trc));
    r->ro.log_dir = r->logdir;
    if (bench_pgbench_run_argv(&r->ro, &c->argv, c->msg, sizeof(c->msg)) != 0)
        return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
    return 0;
}

static int pgrun_connect(struct pgrun_ctx *r)
{
    struct run_ctx *c = &r->c;
    runner_conn_apply_env(&r->ra.common.conn);
    c->app = make_appname("");
    r->diag_app = make_appname("-diag");
    (void)setenv("PGAPPNAME", c->app, 1);
    return connect_target(c, &r->ra.common, r->diag_app);
}

/* Prepare: the server's settings (a dataset that fits in shared_buffers is worth a warning) and,
 * with --replica-lag, the replicas caught up before the load. */
static void pgrun_prepare_server(struct pgrun_ctx *r)
{
    struct run_ctx *c = &r->c;
    if (pg_server_info_get(c->conn, &r->si, c->msg, sizeof(c->msg)) == 0)
        r->have_si = true;
    else
        log_warn("runner", "cannot read server settings: %s", c->msg);
    r->rtt_ms = NAN;
    if (r->ra.wait_events) {
        r->tls = PQsslInUse(c->conn) == 1;
        r->rtt_ms = pg_rtt_probe(c->conn, 10, c->msg, sizeof(c->msg));
        if (isnan(r->rtt_ms))
            log_warn("runner", "cannot time SELECT 1: %s", c->msg);
    }
    if (r->have_si && r->si.database_bytes <= r->si.shared_buffers_bytes)
        log_warn("runner",
                 "dataset (%lld bytes) fits in shared_buffers (%lld bytes): the run "
                 "measures memory, not storage",
                 (long long)r->si.database_bytes, (long long)r->si.shared_buffers_bytes);
    if (!r->ra.replica_lag)
        return;
    int rc = pg_replica_catchup(c->conn, r->ra.replica_timeout_s, &runner_stop_signal, &r->rw,
                                c->msg, sizeof(c->msg));
    if (rc == 0 || rc == -ECANCELED) {
        r->replica_waited = true;
        if (r->rw.caught_up)
            log_info("runner", "replication: %s", r->rw.message);
        else
            log_warn("runner", "replication: %s", r->rw.message);
    } else {
        log_warn("runner", "cannot check replication: %s", c->msg);
    }
}

static void pgrun_on_data(struct child_drive *d, int stream, const char *data, size_t len);
static void pgrun_on_start(struct child_drive *d);
static void pgrun_on_end(struct child_drive *d);

/* Prepare: the drive with its watchdog and deadline, the parser, the diagnostics sampler and
 * the transaction-log stream. */
static void pgrun_prepare_load(struct pgrun_ctx *r)
{
    static const struct child_drive_hooks hooks = {
        .on_data = pgrun_on_data, .on_start = pgrun_on_start, .on_end = pgrun_on_end};
    struct child_drive *d = &r->c.drive;
    child_drive_init(d, uv_default_loop(), r->c.argv.argv, &hooks, r);
    d->echo = true;
    if (r->ro.duration_s > 0) {
        /* -T runs end by themselves; one that hangs (a dead connection without keepalives)
         * is stopped so that the pod still reports. BENCH_WATCHDOG_SECONDS overrides. */
        const char *wd = getenv("BENCH_WATCHDOG_SECONDS");
        int dur = r->ro.duration_s;
        d->watchdog_s = wd && *wd ? strtod(wd, NULL) : dur + (dur / 2 > 30 ? dur / 2 : 30);
    }
    d->deadline_at = env_unix_time("BENCH_DEADLINE_AT");
    r->pg = bench_pgbench_result_new();
    if (r->ra.wait_events || r->ra.replica_lag) {
        struct pg_diag_options dopt = {
            .appname = r->c.app,
            .wait_events = r->ra.wait_events,
            .replica_lag = r->ra.replica_lag,
            .standby = r->have_si ? r->si.in_recovery : r->rw.standby,
            .interval_ms = pg_diag_interval_ms(r->ro.duration_s),
        };
        r->diag = pg_diag_new(d->loop, r->c.conn, &dopt);
        if (!r->diag)
            log_warn("runner", "diagnostics sampling unavailable");
    }
    r->tl = bench_txlog_new();
    r->tl->rate_limited = r->ro.rate > 0;
    txstream_init(&r->ts, r->logdir, r->tl);
    r->ts_open = true;
    (void)uv_timer_init(d->loop, &r->txtimer);
    r->txtimer.data = r;
}

/* The progress record the operator follows (rows "progress.*" of the result contract). */
static char *progress_record(const struct pgrun_ctx *r, const struct bench_timeline_point *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    (void)bench_put_key(o, BK_PROGRESS_T, cJSON_CreateNumber(p->t));
    (void)bench_put_key(o, BK_PROGRESS_TPS, cJSON_CreateNumber(p->tps));
    (void)bench_put_key(o, BK_PROGRESS_LATENCY_MS,
                        isfinite(p->latency_ms) ? cJSON_CreateNumber(p->latency_ms)
                                                : cJSON_CreateNull());
    (void)bench_put_key(o, BK_PROGRESS_FAILED_TOTAL,
                        p->failed >= 0 ? cJSON_CreateNumber((double)r->failed_total)
                                       : cJSON_CreateNull());
    (void)bench_put_key(o, BK_PROGRESS_DURATION_SECONDS,
                        r->ro.duration_s > 0 ? cJSON_CreateNumber(r->ro.duration_s)
                                             : cJSON_CreateNull());
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static void pgrun_on_data(struct child_drive *d, int stream, const char *data, size_t len)
{
    struct pgrun_ctx *r = d->ctx;
    (void)bench_pgbench_feed(r->pg, stream == 1 ? BENCH_STREAM_STDOUT : BENCH_STREAM_STDERR, data,
                             len);
    while (r->timeline_logged < r->pg->ntimeline) {
        const struct bench_timeline_point *p = &r->pg->timeline[r->timeline_logged++];
        if (p->failed > 0)
            r->failed_total += p->failed;
        char *rec = progress_record(r, p);
        log_record(LOG_INFO, "pgbench", bench_key(BK_PROGRESS), rec,
                   "progress t=%.0fs tps=%.1f latency=%.3fms stddev=%.3fms failed=%lld", p->t,
                   p->tps, p->latency_ms, p->stddev_ms,
                   (long long)(p->failed >= 0 ? p->failed : 0));
        free(rec);
    }
}

/* pgbench's threads' scheduler times, kept from the last read while it runs (its /proc entries go
 * with it). */
static void sample_sched(struct pgrun_ctx *r)
{
    struct util_sched s;
    if (r->c.drive.child.running && util_sched_read("/proc", r->c.drive.child.pid, &s) == 0) {
        r->sched = s;
        r->sched_at = util_wall_s();
    }
}

static void on_txtimer(uv_timer_t *t)
{
    struct pgrun_ctx *r = t->data;
    (void)txstream_poll(&r->ts, false);
    sample_sched(r);
}

static void pgrun_on_start(struct child_drive *d)
{
    struct pgrun_ctx *r = d->ctx;
    /* BENCH_TXLOG_POLL_MS: how often the logs are read (0 = only after the run) */
    const char *e = getenv("BENCH_TXLOG_POLL_MS");
    long ms = e && *e ? strtol(e, NULL, 10) : 1000;
    bench_txlog_start(r->tl, r->ra.warmup_s);
    if (ms > 0)
        (void)uv_timer_start(&r->txtimer, on_txtimer, (uint64_t)ms, (uint64_t)ms);
    (void)getrusage(RUSAGE_CHILDREN, &r->ru0);
    (void)getrusage(RUSAGE_SELF, &r->self0);
    if (r->ra.server_settings && r->have_si) {
        if (pg_stats_read(r->c.conn, r->si.version_num, &r->st0, r->c.msg, sizeof(r->c.msg)) == 0)
            r->have_st0 = true;
        else
            log_warn("runner", "cannot read server counters: %s", r->c.msg);
    }
    if (r->diag && pg_diag_start(r->diag) != 0)
        log_warn("runner", "cannot start diagnostics sampling");
}

static void pgrun_on_end(struct child_drive *d)
{
    struct pgrun_ctx *r = d->ctx;
    if (r->diag) {
        pg_diag_stop(r->diag);
        r->waits = *pg_diag_waits(r->diag);
        r->lag = *pg_diag_lag(r->diag);
        r->diag_skipped = pg_diag_skipped(r->diag);
        const char *e = pg_diag_error(r->diag);
        (void)snprintf(r->diag_error, sizeof(r->diag_error), "%s", e ? e : "");
        (void)pg_diag_close(r->diag, NULL, NULL);
        r->diag = NULL;
    }
    if (r->have_st0) {
        int drc = pg_conn_drain(r->c.conn, 5);
        if (drc)
            log_warn("runner", "no server counters after the load: the connection is %s",
                     drc == -ETIMEDOUT ? "still busy after 5 s" : "not usable");
        else if (pg_stats_read(r->c.conn, r->si.version_num, &r->st1, r->c.msg, sizeof(r->c.msg)) ==
                 0)
            r->have_st1 = true;
        else
            log_warn("runner", "cannot read server counters after the load: %s", r->c.msg);
    }
    barrier_close(&r->barrier);
    uv_close((uv_handle_t *)&r->txtimer, NULL);
}

/* The run's exit code from how pgbench ended and what it printed: OK only for a whole run. */
static int pgrun_exit_code(const struct pgrun_ctx *r, const struct child_drive *d)
{
    const struct bench_pgbench_result *pg = r->pg;
    if (d->spawn_error)
        return BENCH_EXIT_USAGE;
    if (!d->started)
        return BENCH_EXIT_PARTIAL; /* signalled, or the deadline, before the start */
    if (r->child_exit == 0 && pg->summary_seen && pg->aborted_clients == 0 && !pg->run_aborted &&
        !d->signal && !d->watchdog_fired)
        return BENCH_EXIT_OK;
    if (r->child_exit == 1 && !pg->summary_seen) {
        for (size_t i = 0; i < pg->nerrors; i++)
            if (strstr(pg->errors[i], "connection to server"))
                return BENCH_EXIT_UNREACHABLE;
        return d->signal ? BENCH_EXIT_PARTIAL : BENCH_EXIT_USAGE;
    }
    return BENCH_EXIT_PARTIAL;
}

/* Collect: the last of the output and the logs, then what the run's exit code is. */
static void pgrun_collect(struct pgrun_ctx *r)
{
    struct run_ctx *c = &r->c;
    const struct child_drive *d = &c->drive;
    bench_pgbench_finish(r->pg);
    int lrc = txstream_poll(&r->ts, true);
    if (lrc)
        log_warn("runner", "reading transaction logs in %s: %s", r->logdir, strerror(-lrc));
    log_info("runner", "transaction logs: %d files, %llu bytes read, %llu bytes released early",
             r->ts.nfiles, (unsigned long long)r->ts.bytes, (unsigned long long)r->ts.punched);
    txstream_close(&r->ts);
    r->ts_open = false;
    runner_remove_dir(r->logdir);
    r->logdir[0] = '\0';

    const struct bench_pgbench_result *pg = r->pg;
    r->child_exit = child_drive_exit(d);
    c->exit_code = pgrun_exit_code(r, d);
    r->complete = c->exit_code == BENCH_EXIT_OK;
    const char *user = PQuser(c->conn); /* conn is open here */
    run_result_new(c, r->child_exit, r->complete, user && *user ? user : NULL);
    bench_result_add_pgbench(c->result, pg, bench_hist_count(r->tl->hist) ? r->tl->hist : NULL,
                             &r->ro);
    bench_result_add_txlog(c->result, r->tl, r->ra.warmup_s);
    if (d->started)
        bench_result_add_window(c->result, r->barrier.at, r->barrier.seen, d->start, d->end);
}

/* Report: why the run is not complete, in the result's errors. */
static void pgrun_report_errors(struct pgrun_ctx *r)
{
    struct run_ctx *c = &r->c;
    const struct child_drive *d = &c->drive;
    if (d->spawn_error)
        run_add_error(c, "cannot start %s: %s", r->ro.pgbench_path, uv_strerror(d->spawn_error));
    if (d->signal)
        run_add_error(c, "terminated by signal %d (%s)%s", d->signal,
                      d->signal == SIGTERM  ? "SIGTERM"
                      : d->signal == SIGINT ? "SIGINT"
                                            : "signal",
                      d->started ? "; forwarded to pgbench, partial results" : " before start");
    if (d->started && !r->pg->summary_seen && !d->signal && !d->watchdog_fired &&
        c->exit_code != BENCH_EXIT_OK && r->pg->nerrors == 0)
        run_add_error(c, "pgbench exited with status %d without a summary", r->child_exit);
    if (r->barrier.never)
        run_add_error(c, "deadline: no start time was published (BENCH_START_AT_FILE stayed "
                         "empty) by the run's deadline; the load never started");
    if (d->watchdog_fired && d->deadline_armed)
        run_add_error(c,
                      "deadline: pgbench was still running at the run's deadline, %.0f s after "
                      "it started, and was stopped; the result is partial",
                      d->end - d->start);
    else if (d->watchdog_fired)
        run_add_error(c,
                      "watchdog: pgbench was still running %.0f s after its start (duration %d "
                      "s) and was killed",
                      d->watchdog_s, r->ro.duration_s);
    if (r->replica_waited && !r->rw.caught_up)
        run_add_error(c, "warning: replication %s", r->rw.message);
}

static cJSON *lag_json(const struct pg_replica_wait *w, bool waited,
                       const struct pg_lag_samples *lag)
{
    cJSON *o = waited ? pg_replica_wait_to_json(w) : cJSON_CreateObject();
    cJSON *arr = cJSON_CreateArray();
    util_jset(o, bench_key(BK_CHECKS_REPLICA_LAG_SAMPLES_MS), arr);
    for (int i = 0; i < lag->n; i++)
        (void)cJSON_AddItemToArray(arr, cJSON_CreateNumber(round(lag->ms[i] * 1000.0) / 1000.0));
    if (lag->n) {
        util_jset_num(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_MS),
                      round(lag->ms_max * 1000.0) / 1000.0);
        util_jset_num(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_BYTES), (double)lag->bytes_max);
    } else {
        util_jset(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_MS), cJSON_CreateNull());
        util_jset(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_BYTES), cJSON_CreateNull());
    }
    return o;
}

static void pgrun_wait_events(struct pgrun_ctx *r)
{
    cJSON *we = pg_wait_tally_to_json(&r->waits);
    util_jset_str(we, bench_key(BK_WAIT_EVENTS_APPLICATION_NAME), r->c.app);
    util_jset_num(we, bench_key(BK_WAIT_EVENTS_SKIPPED_TICKS), r->diag_skipped);
    if (r->diag_error[0])
        util_jset_str(we, bench_key(BK_WAIT_EVENTS_ERROR), r->diag_error);
    util_jset_str(we, bench_key(BK_WAIT_EVENTS_CPU_MEANS),
                  "state active with no wait event; Client:ClientRead is idle "
                  "time waiting for pgbench");
    (void)bench_result_set_diagnostic(r->c.result, BK_WAIT_EVENTS, we);
}

/* User + system CPU seconds from a to b. */
static double cpu_between(const struct rusage *a, const struct rusage *b)
{
    return (double)(b->ru_utime.tv_sec - a->ru_utime.tv_sec) +
           (double)(b->ru_stime.tv_sec - a->ru_stime.tv_sec) +
           (double)(b->ru_utime.tv_usec - a->ru_utime.tv_usec) / 1e6 +
           (double)(b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1e6;
}

/* The runner's own side: pgbench's CPU time and its own (the container's, as both share its
 * cgroup) against what the cgroup allows over the run. */
static cJSON *client_json(const struct pgrun_ctx *r)
{
    const struct child_drive *d = &r->c.drive;
    struct rusage ru1, self1;
    (void)getrusage(RUSAGE_CHILDREN, &ru1);
    (void)getrusage(RUSAGE_SELF, &self1);
    double cpu = cpu_between(&r->ru0, &ru1) + cpu_between(&r->self0, &self1);
    double run = d->started ? d->end - d->start : NAN, quota = 0;
    const char *version = "none";
    (void)util_cgroup_self_cpu_quota("/sys/fs/cgroup", &quota, &version);
    double cpus = util_cpus_allowed();
    if (quota > 0 && quota < cpus)
        cpus = quota;
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, bench_key(BK_CLIENT_CPU_SECONDS), round(cpu * 1000.0) / 1000.0);
    util_jset(o, bench_key(BK_CLIENT_RUN_SECONDS),
              isfinite(run) ? cJSON_CreateNumber(round(run * 1000.0) / 1000.0)
                            : cJSON_CreateNull());
    util_jset_str(o, bench_key(BK_CLIENT_CGROUP), version);
    util_jset(o, bench_key(BK_CLIENT_CPU_LIMIT_CORES),
              quota > 0 ? cJSON_CreateNumber(quota) : cJSON_CreateNull());
    util_jset_num(o, bench_key(BK_CLIENT_CPUS), cpus);
    util_jset(o, bench_key(BK_CLIENT_CPU_BUSY_PCT),
              run > 0 ? cJSON_CreateNumber(round(cpu / (run * cpus) * 1000.0) / 10.0)
                      : cJSON_CreateNull());
    /* the threads' time from the spawn to the last read: on a CPU, or runnable and waiting */
    double span = r->sched.tasks * (r->sched_at - d->start);
    bool sched = r->sched.tasks > 0 && span >= 0.5;
    util_jset(o, bench_key(BK_CLIENT_CPU_DEMAND_PCT),
              sched ? cJSON_CreateNumber(fmin(
                          100.0, round((r->sched.run_s + r->sched.wait_s) / span * 1000.0) / 10.0))
                    : cJSON_CreateNull());
    util_jset(o, bench_key(BK_CLIENT_CPU_WAIT_PCT),
              sched ? cJSON_CreateNumber(fmin(100.0, round(r->sched.wait_s / span * 1000.0) / 10.0))
                    : cJSON_CreateNull());
    util_jset_num(o, bench_key(BK_CLIENT_THREADS), r->ro.threads);
    util_jset_num(o, bench_key(BK_CLIENT_CLIENTS), r->ro.clients);
    util_jset(o, bench_key(BK_CLIENT_TLS), cJSON_CreateBool(r->tls));
    return o;
}

static cJSON *network_json(const struct pgrun_ctx *r)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, bench_key(BK_NETWORK_RTT_MS), round(r->rtt_ms * 1000.0) / 1000.0);
    util_jset_num(o, bench_key(BK_NETWORK_RTT_SAMPLES), 10);
    return o;
}

/* Report: the diagnostics (wait events, server, checks), then the result line. */
static void pgrun_report(struct pgrun_ctx *r)
{
    cJSON *res = r->c.result;
    const struct bench_pgbench_result *pg = r->pg;
    pgrun_report_errors(r);
    if (r->ra.wait_events) {
        pgrun_wait_events(r);
        (void)bench_result_set_diagnostic(res, BK_CLIENT, client_json(r));
        if (!isnan(r->rtt_ms))
            (void)bench_result_set_diagnostic(res, BK_NETWORK, network_json(r));
    }
    if (r->have_st1)
        (void)bench_result_set_diagnostic(res, BK_SERVER_STATS,
                                          pg_stats_delta_json(&r->st0, &r->st1));
    if (r->have_si && r->ra.server_settings)
        (void)bench_result_set_diagnostic(res, BK_SERVER, pg_server_info_to_json(&r->si));
    if (r->have_si) {
        (void)bench_result_set_diagnostic(
            res, BK_CHECKS_DATASET,
            bench_check_dataset(r->si.database_bytes, r->si.shared_buffers_bytes));
    }
    if (!isnan(pg->latency_avg_ms) && pg->latency_avg_ms > 0 && !isnan(pg->tps)) {
        int clients = pg->clients > 0 ? pg->clients : r->ro.clients;
        cJSON *ll = bench_check_littles_law(clients, pg->latency_avg_ms, pg->tps, r->ro.rate > 0);
        if (ll)
            (void)bench_result_set_diagnostic(res, BK_CHECKS_LITTLES_LAW, ll);
    }
    if (r->ra.replica_lag)
        (void)bench_result_set_diagnostic(res, BK_CHECKS_REPLICA,
                                          lag_json(&r->rw, r->replica_waited, &r->lag));
    struct bench_verdict v; /* the aggregate decides it again over every worker's evidence */
    if (bench_verdict_of(res, &v) == 0)
        (void)bench_result_set_diagnostic(res, BK_VERDICT, bench_verdict_json(&v));
    /* close the diagnostics connection before printing: nothing may follow the result line */
    PQfinish(r->c.conn);
    r->c.conn = NULL;
    run_emit(&r->c);
}

static void pgrun_free(struct pgrun_ctx *r)
{
    if (r->logdir[0])
        runner_remove_dir(r->logdir);
    if (r->ts_open)
        txstream_close(&r->ts);
    bench_pgbench_result_free(r->pg);
    bench_txlog_free(r->tl);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &r->ra);
    free(r->diag_app);
    run_ctx_free(&r->c);
    free(r);
}

int runner_cmd_pgbench_run(int argc, char **argv)
{
    struct pgrun_ctx *r = util_xcalloc(1, sizeof(*r));
    run_ctx_init(&r->c, "pgbench", BENCH_RUNNER_PGBENCH_RUN);
    if (pgrun_options(r, argc, argv) == 0 && pgrun_command_line(r) == 0 && pgrun_connect(r) == 0) {
        pgrun_prepare_server(r);
        pgrun_prepare_load(r);
        barrier_begin(&r->barrier, &r->c.drive);
        child_drive_run(&r->c.drive);
        pgrun_collect(r);
        pgrun_report(r);
    }
    int exit_code = r->c.exit_code;
    pgrun_free(r);
    return exit_code;
}
