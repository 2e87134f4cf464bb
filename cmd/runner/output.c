/* Runner output and environment helpers (see runner.h). */
#include "cmd/runner/runner.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/bench/pgbench.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"
#include "pkg/util/clock.h"
#include "pkg/util/redact.h"

volatile sig_atomic_t runner_stop_signal = 0;

static void early_handler(int signum)
{
    runner_stop_signal = signum;
}

void runner_install_early_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = early_handler;
    (void)sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: sleeps return EINTR */
    (void)sigaction(SIGTERM, &sa, NULL);
    (void)sigaction(SIGINT, &sa, NULL);
}

void runner_conn_apply_env(const struct bench_conninfo *ci)
{
    for (int f = BENCH_CONNINFO_HOST; f <= BENCH_CONNINFO_SSLROOTCERT; f++) {
        const char *v = pg_conninfo_get(ci, (enum bench_conninfo_field)f);
        if (v)
            (void)setenv(bench_conninfo_env((enum bench_conninfo_field)f), v, 1);
    }
}

int runner_conn_check(const struct bench_conninfo *ci, char *msg, size_t n)
{
    static const struct {
        const char *flag;
        enum bench_conninfo_field field;
        bool host;
    } fields[] = {
        {"--host", BENCH_CONNINFO_HOST, true},
        {"--dbname", BENCH_CONNINFO_DBNAME, false},
        {"--user", BENCH_CONNINFO_USER, false},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const char *v = pg_conninfo_get(ci, fields[i].field);
        const char *from = fields[i].flag;
        if (!v) { /* libpq and pgbench read the variable; empty is as unset */
            from = bench_conninfo_env(fields[i].field);
            v = getenv(from);
            if (!v || !*v)
                continue;
        }
        char why[512];
        int rc = fields[i].host ? bench_conn_check_host(v, true, why, sizeof(why))
                                : bench_conn_check_name(v, why, sizeof(why));
        if (rc) {
            (void)snprintf(msg, n, "%s \"%.200s\": %s", from, v, why);
            return -EINVAL;
        }
    }
    return 0;
}

int runner_worker_index(void)
{
    const char *s = getenv("JOB_COMPLETION_INDEX");
    if (!s || !*s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 100000)
        return -1;
    return (int)v;
}

/* Entry JOB_COMPLETION_INDEX of list variable var ("3,2,2") as a number in [lo, hi] (what: its
 * meaning, for the message) into *out. Returns 1 when var is unset, 0, or -1 with msg set. */
static int share_for_worker(const char *var, const char *what, double lo, double hi, double *out,
                            char *msg, size_t n)
{
    const char *list = getenv(var);
    if (!list || !*list)
        return 1;
    int index = runner_worker_index();
    if (index < 0) {
        (void)snprintf(msg, n, "%s is set but JOB_COMPLETION_INDEX is not", var);
        return -1;
    }
    const char *p = list;
    for (int i = 0;; i++) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || !(v >= lo && v <= hi) || (*end && *end != ',')) {
            (void)snprintf(msg, n, "%s=%.64s: entry %d is not %s from %g to %g", var, list, i, what,
                           lo, hi);
            return -1;
        }
        if (i == index) {
            *out = v;
            return 0;
        }
        if (!*end) {
            (void)snprintf(msg, n, "%s=%.64s has no entry for worker %d", var, list, index);
            return -1;
        }
        p = end + 1;
    }
}

int runner_clients_for_worker(int clients, char *msg, size_t n)
{
    double v;
    int rc = share_for_worker("BENCH_CLIENTS_BY_INDEX", "a client count", 1, 100000, &v, msg, n);
    if (rc == 0 && v != floor(v)) {
        (void)snprintf(msg, n, "BENCH_CLIENTS_BY_INDEX: %g is not a whole client count", v);
        return -1;
    }
    return rc < 0 ? -1 : rc > 0 ? clients : (int)v;
}

double runner_rate_for_worker(double rate, char *msg, size_t n)
{
    double v;
    int rc = share_for_worker("BENCH_RATE_BY_INDEX", "a rate", 0.001, 1e9, &v, msg, n);
    return rc < 0 ? -1 : rc > 0 ? rate : v;
}

const char *runner_termination_path(void)
{
    const char *p = getenv("BENCH_TERMINATION_LOG");
    if (p && *p)
        return p;
    p = getenv("SIM_TERMINATION_MESSAGE_PATH");
    if (p && *p)
        return p;
    if (access("/dev/termination-log", W_OK) == 0)
        return "/dev/termination-log";
    return NULL;
}

/* The password never leaves the runner, whatever a server or pgbench echoed. */
static void redact(char *s)
{
    util_redact(s, getenv("PGPASSWORD"));
}

static void write_termination(const char *text)
{
    const char *path = runner_termination_path();
    if (!path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_warn("runner", "cannot write the termination log %s: %s", path, strerror(errno));
        return;
    }
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            log_warn("runner", "writing the termination log %s: %s", path, strerror(errno));
            break;
        }
        off += (size_t)n;
    }
    (void)close(fd);
}

/* Human lines for what pkg/pg adds (wait events, replica), after bench's summary. */
static void human_diagnostics(const cJSON *result)
{
    const cJSON *ev = bench_get(result, BK_WAIT_EVENTS_EVENTS);
    const cJSON *total = bench_get(result, BK_WAIT_EVENTS_BACKEND_SAMPLES);
    const cJSON *samples = bench_get(result, BK_WAIT_EVENTS_SAMPLES);
    if (cJSON_IsObject(ev) && cJSON_IsNumber(total) && cJSON_IsNumber(samples)) {
        struct buf line = BUF_INIT(1024);
        (void)buf_printf(&line, "wait events (%d samples):", samples->valueint);
        int shown = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, ev)
        {
            if (shown++ == 6 || !cJSON_IsNumber(e) || total->valuedouble <= 0)
                break;
            (void)buf_printf(&line, "%s %s %.0f%%", shown > 1 ? "," : "", e->string,
                             100.0 * e->valuedouble / total->valuedouble);
        }
        if (line.data)
            (void)fprintf(stderr, "%s\n", line.data);
        buf_free(&line);
    }
    const cJSON *verdict = bench_get(result, BK_VERDICT_SUMMARY);
    if (cJSON_IsString(verdict))
        (void)fprintf(stderr, "verdict: %s\n", verdict->valuestring);
    if (cJSON_IsObject(bench_get(result, BK_CHECKS_REPLICA))) {
        const cJSON *msg = bench_get(result, BK_CHECKS_REPLICA_MESSAGE);
        const cJSON *lag = bench_get(result, BK_CHECKS_REPLICA_LAG_SAMPLES_MS);
        const cJSON *max = bench_get(result, BK_CHECKS_REPLICA_MAX_LAG_MS);
        char maxs[32] = "n/a";
        if (cJSON_IsNumber(max))
            (void)snprintf(maxs, sizeof(maxs), "%.1f ms", max->valuedouble);
        (void)fprintf(stderr, "replica: %s; lag max %s over %d samples\n",
                      cJSON_IsString(msg) ? msg->valuestring : "no catch-up wait", maxs,
                      cJSON_GetArraySize(lag));
    }
}

void runner_emit(const cJSON *result)
{
    char *human = bench_result_human(result);
    redact(human);
    (void)fputs(human, stderr);
    if (*human && human[strlen(human) - 1] != '\n')
        (void)fputc('\n', stderr);
    free(human);
    human_diagnostics(result);
    char *compact = bench_result_compact(result, BENCH_COMPACT_LIMIT);
    redact(compact);
    write_termination(compact);
    free(compact);
    (void)fflush(stderr);
    char *line = util_must(cJSON_PrintUnformatted(result));
    redact(line);
    (void)fputs(line, stdout);
    (void)fputc('\n', stdout);
    free(line);
    (void)fflush(stdout);
}

int runner_fail(const char *kind, int exit_code, double start_time, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof(msg), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
    va_end(ap);
    log_error("runner", "%s", msg);
    struct bench_result_meta m = {
        .kind = kind,
        .worker = runner_worker_index(),
        .start_time = start_time,
        .end_time = util_wall_s(),
        .exit_code = exit_code,
        .child_exit = -1,
        .complete = false,
    };
    cJSON *r = bench_result_new(&m);
    bench_result_add_error(r, msg);
    runner_emit(r);
    cJSON_Delete(r);
    return exit_code;
}

void runner_conn_error_text(const struct pg_error *err, char *dst, size_t n)
{
    (void)snprintf(dst, n, "cannot connect to %s (%s): %s", err->target,
                   pg_error_class_name(err->cls), err->message);
}

int runner_read_stdin(size_t cap, char **out, size_t *len)
{
    struct buf b = BUF_INIT(cap);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            buf_free(&b);
            return -e;
        }
        if (n == 0)
            break;
        int rc = buf_append(&b, chunk, (size_t)n);
        if (rc) {
            buf_free(&b);
            return rc;
        }
    }
    *len = b.len;
    *out = buf_steal(&b);
    if (!*out)
        *out = util_xstrdup("");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * struct run_ctx
 * ------------------------------------------------------------------------------------------- */

void run_ctx_init(struct run_ctx *c, const char *kind, enum bench_runner_cmd cmd)
{
    c->kind = kind;
    c->cmd = cmd;
    c->start = util_wall_s();
    c->exit_code = BENCH_EXIT_USAGE;
    c->argv = (struct bench_argv)BENCH_ARGV_INIT;
}

int run_parse_flags(struct run_ctx *c, int argc, char **argv, void *args)
{
    int rc = bench_runner_parse(c->cmd, argc, argv, args, c->msg, sizeof(c->msg));
    if (rc == BENCH_RUNNER_HELP) {
        char *u = bench_runner_usage(c->cmd, true);
        (void)fputs(u, stdout);
        free(u);
        c->exit_code = 0;
        return -1;
    }
    if (rc)
        return run_fail(c, BENCH_EXIT_USAGE, "%s", c->msg);
    return 0;
}

int run_fail(struct run_ctx *c, int exit_code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof(msg), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
    va_end(ap);
    c->exit_code = runner_fail(c->kind, exit_code, c->start, "%s", msg);
    return -1;
}

void run_result_new(struct run_ctx *c, int child_exit, bool complete, const char *user)
{
    struct bench_result_meta m = {
        .kind = c->kind,
        .worker = runner_worker_index(),
        .start_time = c->start,
        .end_time = util_wall_s(),
        .exit_code = c->exit_code,
        .child_exit = child_exit,
        .complete = complete,
        .user = user,
    };
    c->result = bench_result_new(&m);
}

void run_add_error(struct run_ctx *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof(msg), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
    va_end(ap);
    bench_result_add_error(c->result, msg);
}

void run_add_last_lines(struct run_ctx *c, const char *text, int n, const char *prefix,
                        size_t max_len)
{
    int lines = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        lines += e != p;
        p = e ? e + 1 : NULL;
    }
    int skip = lines > n ? lines - n : 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && skip > 0)
            skip--;
        else if (len)
            run_add_error(c, "%s%.*s", prefix, (int)(len < max_len ? len : max_len), p);
        p = e ? e + 1 : NULL;
    }
}

void run_emit(struct run_ctx *c)
{
    runner_emit(c->result);
    cJSON_Delete(c->result);
    c->result = NULL;
}

void run_ctx_free(struct run_ctx *c)
{
    bench_argv_free(&c->argv);
    if (c->conn)
        PQfinish(c->conn);
    c->conn = NULL;
    free(c->app);
    c->app = NULL;
    cJSON_Delete(c->result);
    c->result = NULL;
    child_drive_free(&c->drive);
}

int runner_temp_dir(char *out, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    (void)snprintf(out, n, "%s/pgbench-runner.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out)) {
        int e = errno;
        out[0] = '\0';
        return -e;
    }
    return 0;
}

void runner_remove_dir(const char *dir)
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
