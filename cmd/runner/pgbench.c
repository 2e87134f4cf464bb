/* `pgbench init` and `pgbench run`: readiness, preparation, the pgbench child on the libuv loop
 * with live progress parsing and libpq diagnostics, then one result. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "cmd/runner/child.h"
#include "cmd/runner/runner.h"
#include "cmd/runner/txstream.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/pg/pg.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"

#define STDERR_KEEP ((size_t)64 * 1024)

/* Options shared by init and run. */
struct common_opts {
    struct runner_conn_flags conn;
    double wait_timeout_s;
    bool create_db;
};

/* The shared flags as parsed from the runner's flag table (pkg/bench/runner_args.h). */
static struct common_opts common_from(const struct bench_runner_common *c)
{
    struct common_opts co = {
        .conn = {c->host, c->port, c->dbname, c->user, c->sslmode, c->sslrootcert},
        .wait_timeout_s = c->wait_timeout_s,
        .create_db = c->create_database,
    };
    return co;
}

/* Parses the options of a subcommand from the flag table. Returns true to go on; false when
 * the subcommand is done with exit code *exit_code: after --help (its text on stdout) or a
 * usage failure (emitted). */
static bool parse_options(enum bench_runner_cmd cmd, const char *kind, double start, int argc,
                          char **argv, void *args, int *exit_code)
{
    char msg[1024] = "";
    int rc = bench_runner_parse(cmd, argc, argv, args, msg, sizeof(msg));
    if (rc == BENCH_RUNNER_HELP) {
        char *u = bench_runner_usage(cmd, true);
        if (!u)
            abort();
        (void)fputs(u, stdout);
        free(u);
        bench_runner_cleanup(cmd, args);
        *exit_code = 0;
        return false;
    }
    if (rc) {
        *exit_code = runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);
        return false;
    }
    return true;
}

/* Connects for the runner's own use (readiness + diagnostics), creating the database when asked.
 * Returns 0 with *conn, or the exit code to use (message in msg). */
static int connect_target(const struct common_opts *co, const char *appname, PGconn **conn,
                          char *msg, size_t n)
{
    struct pg_conninfo ci = {.appname = appname, .cancel = &runner_stop_signal};
    struct pg_error err;
    int rc = pg_wait_ready(&ci, co->wait_timeout_s, conn, &err);
    if (rc == -ECONNREFUSED && err.cls == PG_ERR_DATABASE && co->create_db) {
        bool created = false;
        struct pg_error cerr;
        rc = pg_create_database(&ci, &created, &cerr);
        if (rc) {
            (void)snprintf(msg, n, "cannot create the database on %.200s (%s): %.600s", err.target,
                           pg_error_class_name(cerr.cls), cerr.message);
            return cerr.cls == PG_ERR_OTHER ? BENCH_EXIT_USAGE : BENCH_EXIT_UNREACHABLE;
        }
        rc = pg_wait_ready(&ci, co->wait_timeout_s, conn, &err);
    }
    if (rc == -ECANCELED) {
        (void)snprintf(msg, n, "terminated by signal %d while waiting for %.200s (last error: %s)",
                       (int)runner_stop_signal, err.target, pg_error_class_name(err.cls));
        return BENCH_EXIT_PARTIAL;
    }
    if (rc) {
        runner_conn_error_text(&err, msg, n);
        return BENCH_EXIT_UNREACHABLE;
    }
    return 0;
}

static const char *pgbench_path(void)
{
    const char *p = getenv("PGBENCH");
    return p && *p ? p : "pgbench";
}

/* ---------------------------------------------------------------------------------------------
 * The child on the loop
 * ------------------------------------------------------------------------------------------- */

struct load {
    uv_loop_t *loop;
    char *const *argv;
    struct child child;
    bool child_started;
    bool finished;
    int spawn_error;
    uv_signal_t sigterm, sigint;
    uv_timer_t barrier;
    int signal;
    /* run mode */
    struct bench_pgbench_result *pg; /* NULL in init mode */
    size_t timeline_logged;
    struct pg_diag *diag;
    struct pg_wait_tally waits; /* copied from diag at the end */
    struct pg_lag_samples *lag;
    int diag_skipped;
    char diag_error[256];
    struct txstream *ts; /* run mode: -l logs read every second */
    uv_timer_t txtimer;
    uv_timer_t watchdog; /* kills a pgbench that outlives its -T duration by far */
    double watchdog_s;   /* 0 = none */
    int watchdog_fired;  /* 1 = SIGTERM sent, 2 = SIGKILL sent */
    double deadline_at;  /* run mode: BENCH_DEADLINE_AT, 0 = none */
    bool deadline_armed; /* the watchdog stands for the deadline (it comes first) */
    /* init mode: stderr kept (last STDERR_KEEP bytes) */
    struct buf err;
    double child_start, child_end;
    int duration_s;         /* -T, 0 for a -t run: in the progress records */
    int64_t failed_total;   /* failed transactions in the progress lines so far */
    double barrier_at;      /* BENCH_START_AT (or the time in BENCH_START_AT_FILE), 0 = none */
    const char *start_file; /* BENCH_START_AT_FILE while it is polled, else NULL */
    bool start_never;       /* the deadline came before the start time did */
};

static void load_finish(struct load *l)
{
    if (l->finished)
        return;
    l->finished = true;
    if (l->diag) {
        pg_diag_stop(l->diag);
        l->waits = *pg_diag_waits(l->diag);
        *l->lag = *pg_diag_lag(l->diag);
        l->diag_skipped = pg_diag_skipped(l->diag);
        const char *e = pg_diag_error(l->diag);
        (void)snprintf(l->diag_error, sizeof(l->diag_error), "%s", e ? e : "");
        (void)pg_diag_close(l->diag, NULL, NULL);
        l->diag = NULL;
    }
    uv_close((uv_handle_t *)&l->sigterm, NULL);
    uv_close((uv_handle_t *)&l->sigint, NULL);
    uv_close((uv_handle_t *)&l->barrier, NULL);
    uv_close((uv_handle_t *)&l->txtimer, NULL);
    uv_close((uv_handle_t *)&l->watchdog, NULL);
    if (l->child_started)
        child_close(&l->child);
}

/* The progress record the operator follows (rows "progress.*" of the result contract). */
static char *progress_record(const struct load *l, const struct bench_timeline_point *p)
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
                        p->failed >= 0 ? cJSON_CreateNumber((double)l->failed_total)
                                       : cJSON_CreateNull());
    (void)bench_put_key(o, BK_PROGRESS_DURATION_SECONDS,
                        l->duration_s > 0 ? cJSON_CreateNumber(l->duration_s) : cJSON_CreateNull());
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static void log_progress(struct load *l)
{
    while (l->timeline_logged < l->pg->ntimeline) {
        const struct bench_timeline_point *p = &l->pg->timeline[l->timeline_logged++];
        if (p->failed > 0)
            l->failed_total += p->failed;
        char *rec = progress_record(l, p);
        log_record(LOG_INFO, "pgbench", bench_key(BK_PROGRESS), rec,
                   "progress t=%.0fs tps=%.1f latency=%.3fms stddev=%.3fms failed=%lld", p->t,
                   p->tps, p->latency_ms, p->stddev_ms,
                   (long long)(p->failed >= 0 ? p->failed : 0));
        free(rec);
    }
}

static void on_child_data(struct child *c, int stream, const char *data, size_t len, void *ctx)
{
    (void)c;
    struct load *l = ctx;
    if (l->pg) {
        (void)bench_pgbench_feed(l->pg, stream == 1 ? BENCH_STREAM_STDOUT : BENCH_STREAM_STDERR,
                                 data, len);
        log_progress(l);
        return;
    }
    if (stream == 2) {
        if (len >= STDERR_KEEP) {
            buf_reset(&l->err);
            data += len - STDERR_KEEP;
            len = STDERR_KEEP;
        } else if (l->err.len + len > STDERR_KEEP) {
            buf_consume(&l->err, l->err.len + len - STDERR_KEEP);
        }
        (void)buf_append(&l->err, data, len);
    }
}

static void on_child_done(struct child *c, void *ctx)
{
    struct load *l = ctx;
    l->child_end = util_wall_s();
    if (c->term_signal)
        log_warn("runner", "%s killed by signal %d", l->argv[0], c->term_signal);
    else
        log_info("runner", "%s exited with status %lld", l->argv[0], (long long)c->exit_status);
    load_finish(l);
}

static void on_txtimer(uv_timer_t *t);
static void on_watchdog(uv_timer_t *t);

static void start_child(struct load *l)
{
    size_t argc = 0;
    while (l->argv[argc])
        argc++;
    struct bench_argv view = {(char **)l->argv, argc, argc};
    char *cmd = bench_argv_join(&view);
    log_info("runner", "starting %s", cmd ? cmd : l->argv[0]);
    free(cmd);
    l->child_start = util_wall_s();
    int rc = child_spawn(&l->child, l->loop, l->argv, NULL, on_child_data, on_child_done, l);
    if (rc < 0) {
        l->spawn_error = rc;
        log_error("runner", "cannot start %s: %s", l->argv[0], uv_strerror(rc));
        load_finish(l);
        return;
    }
    l->child_started = true;
    if (l->ts) {
        /* BENCH_TXLOG_POLL_MS: how often the logs are read (0 = only after the run) */
        const char *e = getenv("BENCH_TXLOG_POLL_MS");
        long ms = e && *e ? strtol(e, NULL, 10) : 1000;
        if (ms > 0)
            (void)uv_timer_start(&l->txtimer, on_txtimer, (uint64_t)ms, (uint64_t)ms);
    }
    double limit = l->watchdog_s;
    if (l->deadline_at > 0) {
        /* the run's deadline: stop the load there and report what it has */
        double left = l->deadline_at - l->child_start;
        if (limit <= 0 || left < limit) {
            limit = left > 0.001 ? left : 0.001;
            l->deadline_armed = true;
        }
    }
    if (limit > 0)
        (void)uv_timer_start(&l->watchdog, on_watchdog, (uint64_t)(limit * 1000.0), 0);
    if (l->diag && pg_diag_start(l->diag) != 0)
        log_warn("runner", "cannot start diagnostics sampling");
}

static void on_txtimer(uv_timer_t *t)
{
    struct load *l = t->data;
    (void)txstream_poll(l->ts, false);
}

static void on_watchdog(uv_timer_t *t)
{
    struct load *l = t->data;
    if (!l->child_started || l->child.exited)
        return;
    l->watchdog_fired++;
    if (l->deadline_armed)
        log_error("runner",
                  "%s still running at the run's deadline (BENCH_DEADLINE_AT): sending %s",
                  l->argv[0], l->watchdog_fired == 1 ? "SIGTERM" : "SIGKILL");
    else
        log_error("runner", "%s still running %.0f s after it started (limit %.0f s): sending %s",
                  l->argv[0], util_wall_s() - l->child_start, l->watchdog_s,
                  l->watchdog_fired == 1 ? "SIGTERM" : "SIGKILL");
    (void)child_kill(&l->child, l->watchdog_fired == 1 ? SIGTERM : SIGKILL);
    if (l->watchdog_fired == 1)
        (void)uv_timer_start(&l->watchdog, on_watchdog, 5000, 0);
}

static void on_barrier(uv_timer_t *t)
{
    struct load *l = t->data;
    if (!l->finished)
        start_child(l);
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
static void barrier_arm(struct load *l, double when, const char *where)
{
    l->barrier_at = when;
    double delay = when - util_wall_s();
    char ts[40];
    util_rfc3339(when, 3, ts, sizeof(ts));
    if (delay > 0)
        log_info("runner", "start barrier: waiting %.3f s until %s (%s)", delay, ts, where);
    else
        log_warn("runner", "start barrier %s (%s) already passed %.3f s ago; starting now", ts,
                 where, -delay);
    (void)uv_timer_start(&l->barrier, on_barrier, delay > 0 ? (uint64_t)(delay * 1000.0 + 0.5) : 0,
                         0);
}

/* Polls BENCH_START_AT_FILE (a downwardAPI file of the pod's start-at annotation, which the
 * operator sets once every worker is ready) until it holds the start time, or the run's deadline
 * passes. */
static void on_start_poll(uv_timer_t *t)
{
    struct load *l = t->data;
    if (l->finished)
        return;
    double when = start_file_read(l->start_file);
    if (when > 0) {
        barrier_arm(l, when, l->start_file);
        l->start_file = NULL;
        return;
    }
    if (when < 0) {
        log_warn("runner",
                 "BENCH_START_AT_FILE %s does not hold a time (RFC 3339 or Unix "
                 "seconds); waiting for another",
                 l->start_file);
    }
    if (l->deadline_at > 0 && util_wall_s() >= l->deadline_at) {
        log_error("runner", "no start time in %s by the run's deadline (BENCH_DEADLINE_AT)",
                  l->start_file);
        l->start_never = true;
        load_finish(l);
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct load *l = s->data;
    l->signal = signum;
    if (l->child_started) {
        /* the result follows once the child and its pipes are done */
        if (!l->child.exited) {
            log_warn("runner", "received signal %d, forwarding it to %s (pid %d)", signum,
                     l->argv[0], (int)l->child.pid);
            (void)child_kill(&l->child, signum);
        }
        return;
    }
    log_warn("runner", "received signal %d before the load started", signum);
    load_finish(l);
}

/* Runs the child (after the BENCH_START_AT barrier when set) until it and its pipes are done. */
static void load_run(struct load *l)
{
    (void)uv_signal_init(l->loop, &l->sigterm);
    (void)uv_signal_init(l->loop, &l->sigint);
    l->sigterm.data = l;
    l->sigint.data = l;
    (void)uv_signal_start(&l->sigterm, on_signal, SIGTERM);
    (void)uv_signal_start(&l->sigint, on_signal, SIGINT);
    (void)uv_timer_init(l->loop, &l->barrier);
    l->barrier.data = l;
    (void)uv_timer_init(l->loop, &l->txtimer);
    l->txtimer.data = l;
    (void)uv_timer_init(l->loop, &l->watchdog);
    l->watchdog.data = l;
    if (runner_stop_signal) {
        /* a signal arrived before the loop took the signals over */
        l->signal = (int)runner_stop_signal;
        log_warn("runner", "received signal %d before the load started", l->signal);
        load_finish(l);
        (void)uv_run(l->loop, UV_RUN_DEFAULT);
        return;
    }

    double when = 0;
    const char *at = getenv("BENCH_START_AT");
    if (at && *at) {
        char *end;
        when = strtod(at, &end);
        if (*end || end == at || !(when > 0)) {
            log_warn("runner", "ignoring BENCH_START_AT=%s: not a Unix time", at);
            when = 0;
        }
    }
    const char *file = getenv("BENCH_START_AT_FILE");
    const char *dl = l->pg ? getenv("BENCH_DEADLINE_AT") : NULL;
    if (dl && *dl) {
        char *end;
        double dlv = strtod(dl, &end);
        if (*end || end == dl || !(dlv > 0))
            log_warn("runner", "ignoring BENCH_DEADLINE_AT=%s: not a Unix time", dl);
        else
            l->deadline_at = dlv;
    }
    if (when > 0) {
        barrier_arm(l, when, "BENCH_START_AT");
    } else if (file && *file) {
        /* BENCH_START_POLL_MS: how often the file is read (default 100) */
        const char *e = getenv("BENCH_START_POLL_MS");
        long ms = e && *e ? strtol(e, NULL, 10) : 100;
        l->start_file = file;
        log_info("runner", "waiting for the start time in %s", file);
        (void)uv_timer_start(&l->barrier, on_start_poll, 0, (uint64_t)(ms > 0 ? ms : 100));
    } else {
        (void)uv_timer_start(&l->barrier, on_barrier, 0, 0);
    }
    (void)uv_run(l->loop, UV_RUN_DEFAULT);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[4096];
            (void)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            (void)unlink(p);
        }
        closedir(d);
    }
    (void)rmdir(dir);
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
    char *s = malloc(96);
    if (!s)
        abort();
    (void)snprintf(s, 96, "pgbench-runner%s:%d:%08x", what, runner_worker_index(), token);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * pgbench init
 * ------------------------------------------------------------------------------------------- */

static void add_stderr_errors(cJSON *r, const char *text, bool failed)
{
    /* error-looking lines; when failed and none matched, the last 5 lines */
    int added = 0;
    const char *p = text;
    const char *lines[5] = {0};
    size_t lens[5] = {0};
    int nl = 0;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) {
            if (memmem(p, len, "error", 5) || memmem(p, len, "FATAL", 5) ||
                memmem(p, len, "ERROR", 5)) {
                char line[512];
                (void)snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
                if (added < 20)
                    (void)bench_result_add_error(r, line);
                added++;
            }
            lines[nl % 5] = p;
            lens[nl % 5] = len;
            nl++;
        }
        p = e ? e + 1 : NULL;
    }
    if (failed && !added) {
        for (int i = nl > 5 ? nl - 5 : 0; i < nl; i++) {
            char line[512];
            size_t len = lens[i % 5];
            (void)snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), lines[i % 5]);
            (void)bench_result_add_error(r, line);
        }
    }
}

int runner_cmd_pgbench_init(int argc, char **argv)
{
    const char *kind = "pgbench-init";
    double start = util_wall_s();
    struct bench_runner_init ra; /* owns nothing: no cleanup */
    int parse_rc;
    if (!parse_options(BENCH_RUNNER_PGBENCH_INIT, kind, start, argc, argv, &ra, &parse_rc))
        return parse_rc;
    struct common_opts co = common_from(&ra.common);
    struct bench_pgbench_init_opts io = ra.pg;
    io.pgbench_path = pgbench_path();
    bool skip = ra.skip_if_initialized;
    char msg[1024] = "";
    io.quiet = true;
    if (runner_conn_check(&co.conn, msg, sizeof(msg)))
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);

    struct bench_argv av = BENCH_ARGV_INIT;
    if (bench_pgbench_init_argv(&io, &av, msg, sizeof(msg)) != 0)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);

    runner_conn_apply_env(&co.conn);
    char *app = make_appname("-init");
    (void)setenv("PGAPPNAME", app, 1);
    PGconn *conn = NULL;
    int rc = connect_target(&co, app, &conn, msg, sizeof(msg));
    if (rc) {
        free(app);
        bench_argv_free(&av);
        return runner_fail(kind, rc, start, "%s", msg);
    }
    char user[64]; /* the role libpq connected as (PGUSER, maybe from a Secret) */
    (void)snprintf(user, sizeof(user), "%s", PQuser(conn) ? PQuser(conn) : "");
    char reason[512] = "";
    bool initialized = false;
    if (skip) {
        rc = pg_pgbench_initialized(conn, io.scale, io.partitions, &initialized, reason,
                                    sizeof(reason));
        if (rc)
            log_warn("runner", "%s; initializing", reason);
    }
    PQfinish(conn);

    struct bench_result_meta m = {.kind = kind,
                                  .worker = runner_worker_index(),
                                  .start_time = start,
                                  .child_exit = -1,
                                  .user = user[0] ? user : NULL};
    cJSON *r = NULL;
    int exit_code = BENCH_EXIT_OK;
    if (initialized) {
        log_info("runner", "skipping init: %s", reason);
        m.end_time = util_wall_s();
        m.complete = true;
        m.exit_code = BENCH_EXIT_OK;
        r = bench_result_new(&m);
        if (!r || bench_result_add_init(r, true, reason, io.scale, m.end_time - start))
            abort();
        goto emit;
    }
    if (skip && reason[0])
        log_info("runner", "initializing: %s", reason);

    struct load l = {.loop = uv_default_loop(), .argv = av.argv, .err = BUF_INIT(0)};
    struct pg_lag_samples *unused_lag = calloc(1, sizeof(*unused_lag));
    if (!unused_lag)
        abort();
    l.lag = unused_lag;
    load_run(&l);
    m.end_time = util_wall_s();
    if (l.spawn_error) {
        m.exit_code = exit_code = BENCH_EXIT_USAGE;
    } else if (l.child.term_signal || l.child.exit_status != 0 || l.signal) {
        m.exit_code = exit_code = BENCH_EXIT_PARTIAL;
        m.child_exit = l.child.term_signal ? -1 : (int)l.child.exit_status;
        if (l.err.data && strstr(l.err.data, "connection to server"))
            m.exit_code = exit_code = BENCH_EXIT_UNREACHABLE;
    } else {
        m.child_exit = 0;
        m.complete = true;
    }
    r = bench_result_new(&m);
    if (!r)
        abort();
    char done[640];
    if (m.complete)
        (void)snprintf(done, sizeof(done), "initialized scale %d in %.1f s%s%s", io.scale,
                       l.child_end - l.child_start, reason[0] ? " (" : "", reason[0] ? reason : "");
    else
        (void)snprintf(done, sizeof(done), "initialization of scale %d failed", io.scale);
    if (bench_result_add_init(r, false, done, io.scale, l.child_end - l.child_start))
        abort();
    if (l.spawn_error) {
        char e[256];
        (void)snprintf(e, sizeof(e), "cannot start %s: %s", io.pgbench_path,
                       uv_strerror(l.spawn_error));
        (void)bench_result_add_error(r, e);
    }
    if (l.signal) {
        char e[128];
        (void)snprintf(e, sizeof(e), "terminated by signal %d during init", l.signal);
        (void)bench_result_add_error(r, e);
    }
    add_stderr_errors(r, l.err.data, !m.complete);
    buf_free(&l.err);
    free(unused_lag);
    (void)uv_loop_close(l.loop);
emit:
    runner_emit(r);
    cJSON_Delete(r);
    bench_argv_free(&av);
    free(app);
    return exit_code;
}

/* ---------------------------------------------------------------------------------------------
 * pgbench run
 * ------------------------------------------------------------------------------------------- */

static cJSON *lag_json(const struct pg_replica_wait *w, bool waited,
                       const struct pg_lag_samples *lag)
{
    cJSON *o = waited ? pg_replica_wait_to_json(w) : cJSON_CreateObject();
    if (!o)
        abort();
    cJSON *arr = cJSON_AddArrayToObject(o, bench_key(BK_CHECKS_REPLICA_LAG_SAMPLES_MS));
    for (int i = 0; arr && i < lag->n; i++)
        (void)cJSON_AddItemToArray(arr, cJSON_CreateNumber(round(lag->ms[i] * 1000.0) / 1000.0));
    if (lag->n) {
        (void)cJSON_AddNumberToObject(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_MS),
                                      round(lag->ms_max * 1000.0) / 1000.0);
        (void)cJSON_AddNumberToObject(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_BYTES),
                                      (double)lag->bytes_max);
    } else {
        (void)cJSON_AddNullToObject(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_MS));
        (void)cJSON_AddNullToObject(o, bench_key(BK_CHECKS_REPLICA_MAX_LAG_BYTES));
    }
    return o;
}

int runner_cmd_pgbench_run(int argc, char **argv)
{
    const char *kind = "pgbench";
    double start = util_wall_s();
    struct bench_runner_run ra; /* owns the builtin name and the script paths: cleanup at out */
    int parse_rc;
    if (!parse_options(BENCH_RUNNER_PGBENCH_RUN, kind, start, argc, argv, &ra, &parse_rc))
        return parse_rc;
    struct common_opts co = common_from(&ra.common);
    struct bench_pgbench_run_opts ro = ra.pg; /* its scripts point into ra */
    ro.pgbench_path = pgbench_path();
    bool wait_events = ra.wait_events, server_settings = ra.server_settings,
         replica_lag = ra.replica_lag;
    double replica_timeout = ra.replica_timeout_s;
    char msg[1024] = "";
    int exit_code = BENCH_EXIT_USAGE;
    char *app = NULL, *diag_app = NULL;
    char logdir[4096] = "";
    struct bench_argv av = BENCH_ARGV_INIT;
    PGconn *conn = NULL;
    cJSON *r = NULL;
    struct bench_txlog *tl = NULL;
    struct load *l = NULL;
    struct pg_server_info *si = NULL;
    bool have_si = false;
    struct pg_replica_wait rw;
    bool replica_waited = false;
    memset(&rw, 0, sizeof(rw));

#define USAGE_FAIL(...)                                                                            \
    do {                                                                                           \
        exit_code = runner_fail(kind, BENCH_EXIT_USAGE, start, __VA_ARGS__);                       \
        goto out;                                                                                  \
    } while (0)

    if (runner_conn_check(&co.conn, msg, sizeof(msg)))
        USAGE_FAIL("%s", msg);
    for (size_t i = 0; i < ro.nscripts; i++)
        if (access(ro.scripts[i].path, R_OK) != 0)
            USAGE_FAIL("--%s: cannot read %s: %s",
                       bench_runner_flag(BENCH_RUNNER_PGBENCH_RUN,
                                         offsetof(struct bench_runner_run, pg.scripts)),
                       ro.scripts[i].path, strerror(errno));
    {
        int share = runner_clients_for_worker(ro.clients, msg, sizeof(msg));
        if (share < 0)
            USAGE_FAIL("%s", msg);
        ro.clients = share;
    }

    /* the pgbench binary and its version (decides --max-tries / --failures-detailed) */
    {
        char *out = NULL;
        int status = -1;
        char *vargv[] = {(char *)ro.pgbench_path, "--version", NULL};
        int rc = child_run_capture(vargv, 4096, &out, &status);
        if (rc || status != 0)
            USAGE_FAIL("cannot run %s --version: %s", ro.pgbench_path,
                       rc ? uv_strerror(rc) : "non-zero exit");
        int major = bench_pgbench_version_major(out);
        free(out);
        if (major < 0)
            USAGE_FAIL("cannot read the version of %s", ro.pgbench_path);
        ro.pgbench_major = major;
    }

    const char *tmp = getenv("TMPDIR");
    (void)snprintf(logdir, sizeof(logdir), "%s/pgbench-runner.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(logdir)) {
        int e = errno;
        logdir[0] = '\0';
        USAGE_FAIL("cannot create a directory for transaction logs: %s", strerror(e));
    }
    ro.log_dir = logdir;
    if (bench_pgbench_run_argv(&ro, &av, msg, sizeof(msg)) != 0)
        USAGE_FAIL("%s", msg);

    runner_conn_apply_env(&co.conn);
    app = make_appname("");
    diag_app = make_appname("-diag");
    (void)setenv("PGAPPNAME", app, 1);
    {
        int rc = connect_target(&co, diag_app, &conn, msg, sizeof(msg));
        if (rc) {
            exit_code = runner_fail(kind, rc, start, "%s", msg);
            goto out;
        }
    }

    si = calloc(1, sizeof(*si));
    if (!si)
        abort();
    if (pg_server_info_get(conn, si, msg, sizeof(msg)) == 0)
        have_si = true;
    else
        log_warn("runner", "cannot read server settings: %s", msg);
    if (have_si && si->database_bytes <= si->shared_buffers_bytes)
        log_warn("runner",
                 "dataset (%lld bytes) fits in shared_buffers (%lld bytes): the run "
                 "measures memory, not storage",
                 (long long)si->database_bytes, (long long)si->shared_buffers_bytes);

    if (replica_lag) {
        int crc =
            pg_replica_catchup(conn, replica_timeout, &runner_stop_signal, &rw, msg, sizeof(msg));
        if (crc == 0 || crc == -ECANCELED) {
            replica_waited = true;
            if (rw.caught_up)
                log_info("runner", "replication: %s", rw.message);
            else
                log_warn("runner", "replication: %s", rw.message);
        } else {
            log_warn("runner", "cannot check replication: %s", msg);
        }
    }

    l = calloc(1, sizeof(*l));
    if (!l)
        abort();
    l->lag = calloc(1, sizeof(*l->lag));
    if (!l->lag)
        abort();
    l->loop = uv_default_loop();
    l->argv = av.argv;
    l->pg = bench_pgbench_result_new();
    if (!l->pg)
        abort();
    l->duration_s = ro.duration_s;
    if (ro.duration_s > 0) {
        /* -T runs end by themselves; one that hangs (a dead connection without keepalives)
         * is stopped so that the pod still reports. BENCH_WATCHDOG_SECONDS overrides. */
        const char *wd = getenv("BENCH_WATCHDOG_SECONDS");
        l->watchdog_s = wd && *wd
                            ? strtod(wd, NULL)
                            : ro.duration_s + (ro.duration_s / 2 > 30 ? ro.duration_s / 2 : 30);
    }
    if (wait_events || replica_lag) {
        struct pg_diag_options dopt = {
            .appname = app,
            .wait_events = wait_events,
            .replica_lag = replica_lag,
            .standby = have_si ? si->in_recovery : rw.standby,
            .interval_ms = 1000,
        };
        l->diag = pg_diag_new(l->loop, conn, &dopt);
        if (!l->diag)
            log_warn("runner", "diagnostics sampling unavailable");
    }
    /* the per-transaction logs -> histogram, read while the run goes on */
    tl = bench_txlog_new();
    if (!tl)
        abort();
    tl->rate_limited = ro.rate > 0;
    l->ts = calloc(1, sizeof(*l->ts));
    if (!l->ts)
        abort();
    txstream_init(l->ts, logdir, tl);
    load_run(l);
    bench_pgbench_finish(l->pg);
    int lrc = txstream_poll(l->ts, true);
    if (lrc)
        log_warn("runner", "reading transaction logs in %s: %s", logdir, strerror(-lrc));
    log_info("runner", "transaction logs: %d files, %llu bytes read, %llu bytes released early",
             l->ts->nfiles, (unsigned long long)l->ts->bytes, (unsigned long long)l->ts->punched);
    txstream_close(l->ts);
    remove_dir(logdir);
    logdir[0] = '\0';

    /* outcome */
    struct bench_pgbench_result *pg = l->pg;
    bool complete = false;
    int child_exit = -1;
    if (l->spawn_error) {
        exit_code = BENCH_EXIT_USAGE;
    } else if (l->child_started) {
        child_exit = l->child.term_signal ? -1 : (int)l->child.exit_status;
        bool clean = child_exit == 0 && pg->summary_seen && pg->aborted_clients == 0 &&
                     !pg->run_aborted && !l->signal && !l->watchdog_fired;
        if (clean) {
            complete = true;
            exit_code = BENCH_EXIT_OK;
        } else if (child_exit == 1 && !pg->summary_seen) {
            bool conn_err = false;
            for (size_t i = 0; i < pg->nerrors; i++)
                if (strstr(pg->errors[i], "connection to server"))
                    conn_err = true;
            exit_code = conn_err ? BENCH_EXIT_UNREACHABLE
                                 : (l->signal ? BENCH_EXIT_PARTIAL : BENCH_EXIT_USAGE);
        } else {
            exit_code = BENCH_EXIT_PARTIAL;
        }
    } else {
        exit_code = BENCH_EXIT_PARTIAL; /* signalled, or the deadline, before the start */
    }

    struct bench_result_meta m = {
        .kind = kind,
        .worker = runner_worker_index(),
        .start_time = start,
        .end_time = util_wall_s(),
        .exit_code = exit_code,
        .child_exit = child_exit,
        .complete = complete,
        .user = PQuser(conn) && *PQuser(conn) ? PQuser(conn) : NULL, /* conn is open here */
    };
    r = bench_result_new(&m);
    if (!r)
        abort();
    if (bench_result_add_pgbench(r, pg, bench_hist_count(tl->hist) ? tl->hist : NULL, &ro))
        abort();
    if (l->child_started && bench_result_add_window(r, l->barrier_at, l->child_start, l->child_end))
        abort();
    if (l->spawn_error) {
        (void)snprintf(msg, sizeof(msg), "cannot start %s: %s", ro.pgbench_path,
                       uv_strerror(l->spawn_error));
        (void)bench_result_add_error(r, msg);
    }
    if (l->signal) {
        (void)snprintf(msg, sizeof(msg), "terminated by signal %d (%s)%s", l->signal,
                       l->signal == SIGTERM  ? "SIGTERM"
                       : l->signal == SIGINT ? "SIGINT"
                                             : "signal",
                       l->child_started ? "; forwarded to pgbench, partial results"
                                        : " before start");
        (void)bench_result_add_error(r, msg);
    }
    if (l->child_started && !pg->summary_seen && !l->signal && !l->watchdog_fired &&
        exit_code != BENCH_EXIT_OK && pg->nerrors == 0) {
        (void)snprintf(msg, sizeof(msg), "pgbench exited with status %d without a summary",
                       child_exit);
        (void)bench_result_add_error(r, msg);
    }
    if (l->start_never) {
        (void)snprintf(msg, sizeof(msg),
                       "deadline: no start time was published (BENCH_START_AT_FILE stayed "
                       "empty) by the run's deadline; the load never started");
        (void)bench_result_add_error(r, msg);
    }
    if (l->watchdog_fired && l->deadline_armed) {
        (void)snprintf(msg, sizeof(msg),
                       "deadline: pgbench was still running at the run's deadline, %.0f s after "
                       "it started, and was stopped; the result is partial",
                       l->child_end - l->child_start);
        (void)bench_result_add_error(r, msg);
    } else if (l->watchdog_fired) {
        (void)snprintf(msg, sizeof(msg),
                       "watchdog: pgbench was still running %.0f s after its start (duration %d "
                       "s) and was killed",
                       l->watchdog_s, ro.duration_s);
        (void)bench_result_add_error(r, msg);
    }
    if (replica_waited && !rw.caught_up) {
        (void)snprintf(msg, sizeof(msg), "warning: replication %s", rw.message);
        (void)bench_result_add_error(r, msg);
    }

    /* diagnostics */
    if (wait_events) {
        cJSON *we = pg_wait_tally_to_json(&l->waits);
        if (!we)
            abort();
        (void)cJSON_AddStringToObject(we, bench_key(BK_WAIT_EVENTS_APPLICATION_NAME), app);
        (void)cJSON_AddNumberToObject(we, bench_key(BK_WAIT_EVENTS_SKIPPED_TICKS), l->diag_skipped);
        if (l->diag_error[0])
            (void)cJSON_AddStringToObject(we, bench_key(BK_WAIT_EVENTS_ERROR), l->diag_error);
        (void)cJSON_AddStringToObject(we, bench_key(BK_WAIT_EVENTS_CPU_MEANS),
                                      "state active with no wait event; Client:ClientRead is idle "
                                      "time waiting for pgbench");
        (void)bench_result_set_diagnostic(r, BK_WAIT_EVENTS, we);
    }
    if (have_si && server_settings)
        (void)bench_result_set_diagnostic(r, BK_SERVER, pg_server_info_to_json(si));
    if (have_si) {
        cJSON *ds = bench_check_dataset(si->database_bytes, si->shared_buffers_bytes);
        if (ds)
            (void)bench_result_set_diagnostic(r, BK_CHECKS_DATASET, ds);
    }
    if (!isnan(pg->latency_avg_ms) && pg->latency_avg_ms > 0 && !isnan(pg->tps)) {
        int clients = pg->clients > 0 ? pg->clients : ro.clients;
        cJSON *ll = bench_check_littles_law(clients, pg->latency_avg_ms, pg->tps, ro.rate > 0);
        if (ll)
            (void)bench_result_set_diagnostic(r, BK_CHECKS_LITTLES_LAW, ll);
    }
    if (replica_lag)
        (void)bench_result_set_diagnostic(r, BK_CHECKS_REPLICA,
                                          lag_json(&rw, replica_waited, l->lag));

    /* close the diagnostics connection and the loop before printing: nothing may follow the
     * result line */
    PQfinish(conn);
    conn = NULL;
    runner_emit(r);

out:
    if (logdir[0])
        remove_dir(logdir);
    if (l) {
        bench_pgbench_result_free(l->pg);
        if (l->ts)
            txstream_close(l->ts);
        free(l->ts);
        free(l->lag);
        (void)uv_loop_close(l->loop);
        free(l);
    }
    if (conn)
        PQfinish(conn);
    cJSON_Delete(r);
    bench_txlog_free(tl);
    bench_argv_free(&av);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &ra);
    free(si);
    free(app);
    free(diag_app);
    return exit_code;
#undef USAGE_FAIL
}
