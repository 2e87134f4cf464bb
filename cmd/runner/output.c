/* Runner output and environment helpers (see runner.h). */
#include "cmd/runner/runner.h"

#include <errno.h>
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

void runner_conn_apply_env(const struct runner_conn_flags *f)
{
    if (f->host)
        (void)setenv("PGHOST", f->host, 1);
    if (f->port)
        (void)setenv("PGPORT", f->port, 1);
    if (f->dbname)
        (void)setenv("PGDATABASE", f->dbname, 1);
    if (f->user)
        (void)setenv("PGUSER", f->user, 1);
    if (f->sslmode)
        (void)setenv("PGSSLMODE", f->sslmode, 1);
    if (f->sslrootcert)
        (void)setenv("PGSSLROOTCERT", f->sslrootcert, 1);
}

int runner_conn_check(const struct runner_conn_flags *f, char *msg, size_t n)
{
    static const struct {
        const char *flag, *env;
        size_t off;
        bool host;
    } fields[] = {
        {"--host", "PGHOST", offsetof(struct runner_conn_flags, host), true},
        {"--dbname", "PGDATABASE", offsetof(struct runner_conn_flags, dbname), false},
        {"--user", "PGUSER", offsetof(struct runner_conn_flags, user), false},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const char *v = *(const char *const *)(const void *)((const char *)f + fields[i].off);
        const char *from = fields[i].flag;
        if (!v) { /* libpq and pgbench read the variable; empty is as unset */
            v = getenv(fields[i].env);
            from = fields[i].env;
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

int runner_clients_for_worker(int clients, char *msg, size_t n)
{
    const char *list = getenv("BENCH_CLIENTS_BY_INDEX");
    if (!list || !*list)
        return clients;
    int index = runner_worker_index();
    if (index < 0) {
        (void)snprintf(msg, n, "BENCH_CLIENTS_BY_INDEX is set but JOB_COMPLETION_INDEX is not");
        return -1;
    }
    const char *p = list;
    for (int i = 0;; i++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 100000 || (*end && *end != ',')) {
            (void)snprintf(msg, n,
                           "BENCH_CLIENTS_BY_INDEX=%.64s: entry %d is not a client count "
                           "from 1 to 100000",
                           list, i);
            return -1;
        }
        if (i == index)
            return (int)v;
        if (!*end) {
            (void)snprintf(msg, n, "BENCH_CLIENTS_BY_INDEX=%.64s has no entry for worker %d", list,
                           index);
            return -1;
        }
        p = end + 1;
    }
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
    if (human) {
        redact(human);
        (void)fputs(human, stderr);
        if (*human && human[strlen(human) - 1] != '\n')
            (void)fputc('\n', stderr);
        free(human);
    }
    human_diagnostics(result);
    char *compact = bench_result_compact(result, BENCH_COMPACT_LIMIT);
    if (compact) {
        redact(compact);
        write_termination(compact);
        free(compact);
    } else {
        write_termination(
            "{\"schemaVersion\":1,\"complete\":false,\"errors\":[\"out of memory\"]}");
    }
    (void)fflush(stderr);
    char *line = cJSON_PrintUnformatted(result);
    if (line) {
        redact(line);
        (void)fputs(line, stdout);
        (void)fputc('\n', stdout);
        free(line);
    } else {
        (void)fputs("{\"schemaVersion\":1,\"complete\":false,\"errors\":[\"out of memory\"]}\n",
                    stdout);
    }
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
    if (r) {
        (void)bench_result_add_error(r, msg);
        runner_emit(r);
        cJSON_Delete(r);
    } else {
        (void)fputs("{\"schemaVersion\":1,\"complete\":false,\"errors\":[\"out of memory\"]}\n",
                    stdout);
    }
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
        *out = strdup("");
    return *out ? 0 : -ENOMEM;
}
