/* pgbench command lines: options checked one by one, then combinations, with messages naming
 * the flags. */
#include "pkg/bench/pgbench.h"
#include "pkg/util/mem.h"
#include "pkg/util/err.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARG_LEN 1024

int bench_protocol_parse(const char *s, enum bench_protocol *out)
{
    if (!s)
        return -EINVAL;
    if (!strcmp(s, "simple"))
        *out = BENCH_PROTOCOL_SIMPLE;
    else if (!strcmp(s, "extended"))
        *out = BENCH_PROTOCOL_EXTENDED;
    else if (!strcmp(s, "prepared"))
        *out = BENCH_PROTOCOL_PREPARED;
    else
        return -EINVAL;
    return 0;
}

const char *bench_protocol_name(enum bench_protocol p)
{
    switch (p) {
    case BENCH_PROTOCOL_EXTENDED:
        return "extended";
    case BENCH_PROTOCOL_PREPARED:
        return "prepared";
    default:
        return "simple";
    }
}

static int parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return -EINVAL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -EINVAL;
    *out = v;
    return 0;
}

int bench_weighted_parse(const char *s, char **name_out, int *weight_out)
{
    if (!s || !*s)
        return -EINVAL;
    const char *at = strrchr(s, '@');
    size_t n = at ? (size_t)(at - s) : strlen(s);
    int weight = 1;
    if (n == 0)
        return -EINVAL;
    if (at) {
        long long w;
        if (parse_int(at + 1, 0, INT_MAX, &w))
            return -EINVAL;
        weight = (int)w;
    }
    *name_out = util_xstrndup(s, n);
    *weight_out = weight;
    return 0;
}

static int is_builtin(const char *s)
{
    return !strcmp(s, "tpcb-like") || !strcmp(s, "simple-update") || !strcmp(s, "select-only");
}

/* Printable ASCII/UTF-8, no control characters, bounded. */
static int safe_text(const char *s)
{
    size_t n = 0;
    for (; *s; s++, n++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || n >= MAX_ARG_LEN)
            return 0;
    }
    return 1;
}

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || n > 63 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

/* Appends a flag and its formatted value as two elements. */
__attribute__((format(printf, 3, 4))) static void push2(struct bench_argv *a, const char *flag,
                                                        const char *fmt, ...)
{
    va_list ap;
    bench_argv_push(a, flag);
    va_start(ap, fmt);
    bench_argv_vpushf(a, fmt, ap);
    va_end(ap);
}

/* How every argv ends: the database name last; after an error (rc) a is freed and rc returned,
 * else out takes a. */
static int finish_argv(struct bench_argv *a, int rc, const char *dbname, struct bench_argv *out)
{
    if (!rc && dbname)
        bench_argv_push(a, dbname);
    if (rc) {
        bench_argv_free(a);
        return rc;
    }
    *out = *a;
    return 0;
}

/* pgbench (path NULL: from PATH) and the connection options: how every argv starts. */
static void push_program(struct bench_argv *a, const char *path, const char *host, const char *port,
                         const char *user)
{
    bench_argv_push(a, path ? path : "pgbench");
    if (host)
        push2(a, "-h", "%s", host);
    if (port)
        push2(a, "-p", "%s", port);
    if (user)
        push2(a, "-U", "%s", user);
}

bool bench_conn_expands(const char *s)
{
    return s &&
           (strchr(s, '=') || !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11));
}

#define PG_NAME_MAX 63 /* NAMEDATALEN - 1 */

int bench_conn_check_name(const char *s, char *err, size_t errlen)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0)
        return util_errf(err, errlen, "must not be empty");
    if (bench_conn_expands(s))
        return util_errf(err, errlen,
                         "libpq would read it as a connection string (%s), whose settings would "
                         "override the connection's (sslmode, host, application_name): give the "
                         "name alone",
                         strchr(s, '=') ? "it contains '='" : "it starts with a postgres:// URI");
    if (n > PG_NAME_MAX)
        return util_errf(err, errlen,
                         "is %zu bytes; PostgreSQL names are at most %d bytes (NAMEDATALEN - 1) "
                         "and the server would cut it to another name",
                         n, PG_NAME_MAX);
    return 0;
}

static bool dns_label_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* A DNS name: labels of [A-Za-z0-9_-], 1..63 bytes, no '-' at either end; a trailing dot. */
static bool dns_host(const char *s)
{
    size_t n = strlen(s);
    if (n > 0 && s[n - 1] == '.')
        n--;
    if (n == 0 || n > 253)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') {
            if (!dns_label_char(s[i]))
                return false;
            continue;
        }
        size_t len = i - start;
        if (len == 0 || len > 63 || s[start] == '-' || s[i - 1] == '-')
            return false;
        start = i + 1;
    }
    return true;
}

int bench_conn_check_host(const char *s, bool allow_socket, char *err, size_t errlen)
{
    unsigned char addr[sizeof(struct in6_addr)];
    if (!s || !*s)
        return util_errf(err, errlen, "must not be empty");
    if (strchr(s, ','))
        return util_errf(err, errlen, "is a list of hosts; give one host");
    if (s[0] == '/') {
        if (allow_socket)
            return 0;
        return util_errf(err, errlen,
                         "is a Unix-socket directory, which a pod cannot reach; give a DNS name "
                         "or IP address");
    }
    if (s[0] == '[')
        return util_errf(err, errlen, "write an IPv6 address without brackets");
    if (inet_pton(AF_INET, s, addr) == 1 || inet_pton(AF_INET6, s, addr) == 1 || dns_host(s))
        return 0;
    return util_errf(err, errlen,
                     "is not a DNS name or IP address%s (the port goes in its own setting)",
                     allow_socket ? " or an absolute Unix-socket directory" : "");
}

static int check_conn(const char *host, const char *port, const char *user, const char *dbname,
                      char *err, size_t errlen)
{
    long long p;
    char why[256];
    if (host && (bench_conn_check_host(host, true, why, sizeof(why)) || host[0] == '-'))
        return util_errf(err, errlen, "host: invalid value");
    if (port && parse_int(port, 1, 65535, &p))
        return util_errf(err, errlen, "port: must be 1..65535");
    if (user &&
        (bench_conn_check_name(user, why, sizeof(why)) || !safe_text(user) || user[0] == '-'))
        return util_errf(err, errlen, "user: invalid value");
    /* the dbname is pgbench's last argument: it must not look like an option */
    if (dbname &&
        (bench_conn_check_name(dbname, why, sizeof(why)) || !safe_text(dbname) || dbname[0] == '-'))
        return util_errf(err, errlen, "dbname: invalid value");
    return 0;
}

/* The extra-arguments allow-list: the one list the operator's spec validation and the runner
 * both use (bench_pgbench_check_extra). A row is a pgbench option, its value kind, the mode it
 * belongs to and the first pgbench major that has it. */
enum xval { XV_NONE, XV_DEFINE, XV_SEED, XV_METHOD, XV_SCALE };
struct xopt {
    const char *lng; /* without "--" */
    char shrt;       /* 0 = none */
    enum xval val;
    bool init;     /* true = init only, false = run only */
    int min_major; /* first pgbench major with the option; 0 = all we support */
};
static const struct xopt xopts[] = {
    {"define", 'D', XV_DEFINE, false, 0},        {"random-seed", 0, XV_SEED, false, 0},
    {"vacuum-all", 'v', XV_NONE, false, 0},      {"verbose-errors", 0, XV_NONE, false, 15},
    {"exit-on-abort", 0, XV_NONE, false, 16},    {"continue-on-error", 0, XV_NONE, false, 19},
    {"scale", 's', XV_SCALE, false, 0}, /* only :scale of custom scripts reads it */
    {"partition-method", 0, XV_METHOD, true, 0},
};
#define NXOPTS (sizeof(xopts) / sizeof(xopts[0]))

/* pgbench options the runner passes itself, from its own flags (bench_pgbench_run_argv and
 * bench_pgbench_init_argv): refused as extra arguments like everything not in xopts; listed so
 * that a caller can say which setting to use instead. */
enum { MG_RUN = 1, MG_INIT = 2 };
static const struct managed {
    const char *lng;
    char shrt;
    int modes;
} managed[] = {
    {"client", 'c', MG_RUN},
    {"jobs", 'j', MG_RUN},
    {"time", 'T', MG_RUN},
    {"transactions", 't', MG_RUN},
    {"file", 'f', MG_RUN},
    {"builtin", 'b', MG_RUN},
    {"select-only", 'S', MG_RUN},
    {"skip-some-updates", 'N', MG_RUN},
    {"protocol", 'M', MG_RUN},
    {"rate", 'R', MG_RUN},
    {"latency-limit", 'L', MG_RUN},
    {"no-vacuum", 'n', MG_RUN},
    {"connect", 'C', MG_RUN},
    {"max-tries", 0, MG_RUN},
    {"failures-detailed", 0, MG_RUN},
    {"report-per-command", 'r', MG_RUN},
    {"report-latencies", 0, MG_RUN},
    {"progress", 'P', MG_RUN},
    {"log", 'l', MG_RUN},
    {"log-prefix", 0, MG_RUN},
    {"initialize", 'i', MG_INIT},
    {"scale", 's', MG_INIT},
    {"quiet", 'q', MG_INIT},
    {"foreign-keys", 0, MG_INIT},
    {"partitions", 0, MG_INIT},
    {"init-steps", 'I', MG_INIT},
    {"fillfactor", 'F', MG_INIT},
    {"unlogged-tables", 0, MG_INIT},
    {"tablespace", 0, MG_INIT},
    {"index-tablespace", 0, MG_INIT},
    {"host", 'h', MG_RUN | MG_INIT},
    {"port", 'p', MG_RUN | MG_INIT},
    {"username", 'U', MG_RUN | MG_INIT},
};

/* The option part of an argument: "--name" of "--name=value", "-X" of "-Xvalue". */
static void option_part(const char *a, char *flag, size_t n)
{
    if (!flag || !n)
        return;
    size_t len = a[1] == '-' ? strcspn(a, "=") : 2; /* a is "-X..." or "--..." */
    (void)snprintf(flag, n, "%.*s", (int)len, a);
}

bool bench_pgbench_extra_managed(bool init, const char *arg, char *flag, size_t flaglen)
{
    if (!arg || arg[0] != '-' || !arg[1])
        return false;
    int mode = init ? MG_INIT : MG_RUN;
    for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++) {
        const struct managed *m = &managed[i];
        if (!(m->modes & mode))
            continue;
        bool hit;
        if (arg[1] == '-') {
            size_t n = strcspn(arg + 2, "=");
            hit = strlen(m->lng) == n && !strncmp(arg + 2, m->lng, n);
        } else {
            hit = m->shrt && arg[1] == m->shrt;
        }
        if (hit) {
            option_part(arg, flag, flaglen);
            return true;
        }
    }
    return false;
}

/* -D NAME=VALUE: an identifier, '=', printable text. */
static bool valid_define(const char *v)
{
    const char *eq = v ? strchr(v, '=') : NULL;
    return eq && is_ident(v, (size_t)(eq - v)) && safe_text(v);
}

/* --init-steps: 1..32 of pgbench's step letters. */
static bool valid_steps(const char *v)
{
    return v && *v && strspn(v, "dtgGvpf") == strlen(v) && strlen(v) <= 32;
}

static int check_value(enum xval kind, const char *v)
{
    long long n;
    switch (kind) {
    case XV_NONE:
        return v ? -EINVAL : 0;
    case XV_DEFINE:
        return valid_define(v) ? 0 : -EINVAL;
    case XV_SEED:
        if (v && (!strcmp(v, "time") || !strcmp(v, "rand")))
            return 0;
        return v ? parse_int(v, LLONG_MIN, LLONG_MAX, &n) : -EINVAL;
    case XV_METHOD:
        return v && (!strcmp(v, "range") || !strcmp(v, "hash")) ? 0 : -EINVAL;
    case XV_SCALE:
        return parse_int(v, 1, INT_MAX, &n);
    }
    return -EINVAL;
}

/* "-D/--define --random-seed ...": the allowed options of a mode, from xopts. */
static void allowed_list(bool init, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NXOPTS && len < n; i++) {
        if (xopts[i].init != init)
            continue;
        int w = xopts[i].shrt
                    ? snprintf(out + len, n - len, "%s-%c/--%s", len ? " " : "", xopts[i].shrt,
                               xopts[i].lng)
                    : snprintf(out + len, n - len, "%s--%s", len ? " " : "", xopts[i].lng);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* The row of option a ("--name[=value]" or "-X[value]") in mode init, or NULL; *val is the
 * value attached to it, or NULL. */
static const struct xopt *find_xopt(bool init, const char *a, const char **val)
{
    const struct xopt *opt = NULL;
    if (a[1] == '-') {
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        for (size_t i = 0; i < NXOPTS; i++)
            if (xopts[i].init == init && strlen(xopts[i].lng) == n &&
                !strncmp(xopts[i].lng, name, n))
                opt = &xopts[i];
        *val = eq ? eq + 1 : NULL;
    } else {
        for (size_t i = 0; i < NXOPTS; i++)
            if (xopts[i].init == init && xopts[i].shrt == a[1])
                opt = &xopts[i];
        *val = a[2] ? a + 2 : NULL;
    }
    return opt;
}

/* bench_pgbench_check_extra, also returning the row of the option. */
static int check_extra(bool init, const char *const *args, size_t nargs, size_t *consumed,
                       const struct xopt **row, char *err, size_t errlen)
{
    if (nargs == 0 || !args[0])
        return util_errf(err, errlen, "missing argument");
    const char *a = args[0];
    if (!safe_text(a))
        return util_errf(err, errlen, "argument with control characters or too long");
    if (a[0] != '-' || a[1] == '\0')
        return util_errf(err, errlen, "'%.64s' is not an option", a);
    const char *val = NULL;
    const struct xopt *opt = find_xopt(init, a, &val);
    int attached = val != NULL;
    if (!opt) {
        char allowed[512];
        allowed_list(init, allowed, sizeof(allowed));
        return util_errf(err, errlen, "'%.64s' is not allowed for pgbench %s (allowed: %s)", a,
                         init ? "init" : "run", allowed);
    }
    size_t used = 1;
    if (opt->val != XV_NONE && !attached) {
        if (nargs < 2 || !args[1])
            return util_errf(err, errlen, "'%.64s' needs a value", a);
        val = args[1];
        if (!safe_text(val))
            return util_errf(err, errlen, "value of '%.64s' has control characters", a);
        used = 2;
    }
    if (check_value(opt->val, val))
        return util_errf(err, errlen, "invalid value for '%.64s'", a);
    if (consumed)
        *consumed = used;
    if (row)
        *row = opt;
    return 0;
}

int bench_pgbench_check_extra(bool init, const char *const *args, size_t nargs, size_t *consumed,
                              char *err, size_t errlen)
{
    return check_extra(init, args, nargs, consumed, NULL, err, errlen);
}

/* Validates and appends extra args as given; options newer than the pgbench binary (major, 0 =
 * unknown) are refused here, since the operator cannot know the image's pgbench. */
static int push_extra(struct bench_argv *out, bool init, const char *const *args, size_t n,
                      int major, char *err, size_t errlen)
{
    size_t i = 0;
    while (i < n) {
        size_t used = 1;
        const struct xopt *row = NULL;
        char e[768];
        int rc = check_extra(init, args + i, n - i, &used, &row, e, sizeof(e));
        if (rc)
            return util_errf(err, errlen, "extra args: %s", e);
        if (major > 0 && major < row->min_major)
            return util_errf(err, errlen, "extra args: '%.64s' needs pgbench >= %d (have %d)",
                             args[i], row->min_major, major);
        bench_argv_push(out, args[i]);
        if (used == 2)
            bench_argv_push(out, args[i + 1]);
        i += used;
    }
    return 0;
}

/* What runs and how long: clients, threads, -T/-t, -b and -f with their weights. */
static int check_run_workload(const struct bench_pgbench_run_opts *o, char *err, size_t errlen)
{
    if (o->clients < 1)
        return util_errf(err, errlen, "clients (-c) must be >= 1");
    if (o->threads < 1)
        return util_errf(err, errlen, "threads (-j) must be >= 1");
    if (o->duration_s < 0)
        return util_errf(err, errlen, "duration (-T) must be >= 1");
    if (o->transactions < 0)
        return util_errf(err, errlen, "transactions (-t) must be >= 1");
    if (o->builtin && !is_builtin(o->builtin))
        return util_errf(
            err, errlen,
            "builtin (-b) must be tpcb-like, simple-update or select-only, not '%.64s'",
            o->builtin);
    if (o->builtin_weight < BENCH_PGBENCH_UNSET)
        return util_errf(err, errlen, "builtin weight must be >= 0");
    for (size_t i = 0; i < o->nscripts; i++) {
        const char *p = o->scripts[i].path;
        if (!p || !*p || strchr(p, '@') || !safe_text(p) || p[0] == '-')
            return util_errf(err, errlen, "script %zu (-f): invalid path", i);
        if (o->scripts[i].weight < BENCH_PGBENCH_UNSET)
            return util_errf(err, errlen, "script %zu (-f): weight must be >= 0", i);
    }
    return 0;
}

/* How it runs and reports: -M, -R, -L, --max-tries, -P, -l. */
static int check_run_limits(const struct bench_pgbench_run_opts *o, char *err, size_t errlen)
{
    if (o->protocol < BENCH_PROTOCOL_DEFAULT || o->protocol > BENCH_PROTOCOL_PREPARED)
        return util_errf(err, errlen, "protocol (-M) must be simple, extended or prepared");
    if (!(o->rate >= 0) || o->rate > 1e9)
        return util_errf(err, errlen, "rate (-R) must be 0..1e9");
    if (!(o->latency_limit_ms >= 0) || o->latency_limit_ms > 1e9)
        return util_errf(err, errlen, "latency limit (-L) must be 0..1e9 ms");
    if (o->max_tries < BENCH_PGBENCH_UNSET)
        return util_errf(err, errlen, "--max-tries must be >= 0 (0 = unlimited with -T or -L)");
    if (o->progress_s < 0)
        return util_errf(err, errlen, "progress (-P) must be >= 0");
    if (o->log_dir && (!*o->log_dir || !safe_text(o->log_dir) || o->log_dir[0] == '-'))
        return util_errf(err, errlen, "log directory (-l): invalid path");
    return 0;
}

/* The sum of the -b and -f weights, a weight not given counting 1 (pgbench's own check, before
 * it connects, refuses 0). */
static long long total_weight(const struct bench_pgbench_run_opts *o)
{
    long long total = 0;
    if (o->builtin || o->nscripts == 0)
        total += o->builtin_weight == BENCH_PGBENCH_UNSET ? 1 : o->builtin_weight;
    for (size_t i = 0; i < o->nscripts; i++)
        total += o->scripts[i].weight == BENCH_PGBENCH_UNSET ? 1 : o->scripts[i].weight;
    return total;
}

/* Options that are valid alone but not together (messages name both). */
static int check_run_combinations(const struct bench_pgbench_run_opts *o, char *err, size_t errlen)
{
    if ((o->duration_s > 0) == (o->transactions > 0))
        return util_errf(err, errlen,
                         "exactly one of duration (-T) and transactions (-t) is needed");
    if (o->builtin_weight != BENCH_PGBENCH_UNSET && !o->builtin)
        return util_errf(err, errlen, "builtin weight given without builtin (-b)");
    if (total_weight(o) == 0)
        return util_errf(err, errlen,
                         "total script weight must not be zero, as pgbench requires: every "
                         "-b and -f has weight 0");
    if (o->pgbench_major > 0 && o->pgbench_major < 15 &&
        (o->max_tries != BENCH_PGBENCH_UNSET || o->failures_detailed))
        return util_errf(err, errlen,
                         "--max-tries and --failures-detailed need pgbench >= 15 (have %d)",
                         o->pgbench_major);
    if (o->max_tries == 0 && o->duration_s <= 0 && !(o->latency_limit_ms > 0))
        return util_errf(err, errlen,
                         "--max-tries=0 (unlimited tries) needs a duration (-T) or a latency limit "
                         "(-L), as pgbench requires");
    if (o->progress_s > 0 && o->duration_s > 0 && o->progress_s > o->duration_s)
        return util_errf(err, errlen, "progress (-P %d) is longer than duration (-T %d)",
                         o->progress_s, o->duration_s);
    if (o->latency_limit_ms > 0 && o->latency_limit_ms < 0.001)
        return util_errf(err, errlen, "latency limit (-L) below 1 us");
    return 0;
}

/* -c -j, -T or -t, then -b (tpcb-like when no -f) and the -f scripts, with their weights. */
static void push_run_workload(struct bench_argv *a, const struct bench_pgbench_run_opts *o)
{
    int threads = o->threads > o->clients ? o->clients : o->threads;
    push2(a, "-c", "%d", o->clients);
    push2(a, "-j", "%d", threads);
    if (o->duration_s > 0)
        push2(a, "-T", "%d", o->duration_s);
    if (o->transactions > 0)
        push2(a, "-t", "%lld", (long long)o->transactions);
    if (o->builtin || o->nscripts == 0) {
        const char *b = o->builtin ? o->builtin : "tpcb-like";
        if (o->builtin_weight != BENCH_PGBENCH_UNSET)
            push2(a, "-b", "%s@%d", b, o->builtin_weight);
        else
            push2(a, "-b", "%s", b);
    }
    for (size_t i = 0; i < o->nscripts; i++) {
        if (o->scripts[i].weight != BENCH_PGBENCH_UNSET)
            push2(a, "-f", "%s@%d", o->scripts[i].path, o->scripts[i].weight);
        else
            push2(a, "-f", "%s", o->scripts[i].path);
    }
}

/* -M -R -L -n -C --max-tries --failures-detailed -r -P -l, each only when set. */
static void push_run_options(struct bench_argv *a, const struct bench_pgbench_run_opts *o)
{
    if (o->protocol != BENCH_PROTOCOL_DEFAULT)
        push2(a, "-M", "%s", bench_protocol_name(o->protocol));
    if (o->rate > 0)
        push2(a, "-R", "%.15g", o->rate);
    if (o->latency_limit_ms > 0)
        push2(a, "-L", "%.15g", o->latency_limit_ms);
    if (o->no_vacuum)
        bench_argv_push(a, "-n");
    if (o->connect)
        bench_argv_push(a, "-C");
    if (o->max_tries != BENCH_PGBENCH_UNSET)
        bench_argv_pushf(a, "--max-tries=%d", o->max_tries);
    if (o->failures_detailed)
        bench_argv_push(a, "--failures-detailed");
    if (o->per_statement)
        bench_argv_push(a, "-r");
    if (o->progress_s > 0)
        push2(a, "-P", "%d", o->progress_s);
    if (o->log_dir) {
        bench_argv_push(a, "-l");
        bench_argv_pushf(a, "--log-prefix=%s/%s", o->log_dir, BENCH_PGBENCH_LOG_PREFIX);
    }
}

int bench_pgbench_run_argv(const struct bench_pgbench_run_opts *o, struct bench_argv *out,
                           char *err, size_t errlen)
{
    struct bench_argv a = BENCH_ARGV_INIT;
    int rc = check_run_workload(o, err, errlen);
    if (!rc)
        rc = check_run_limits(o, err, errlen);
    if (!rc)
        rc = check_conn(o->host, o->port, o->user, o->dbname, err, errlen);
    if (!rc)
        rc = check_run_combinations(o, err, errlen);
    if (rc)
        return rc;
    push_program(&a, o->pgbench_path, o->host, o->port, o->user);
    push_run_workload(&a, o);
    push_run_options(&a, o);
    if (o->nextra)
        rc = push_extra(&a, false, o->extra_args, o->nextra, o->pgbench_major, err, errlen);
    return finish_argv(&a, rc, o->dbname, out);
}

/* pgbench's step letters: what each does, for messages. */
#define INIT_STEP_LETTERS                                                                          \
    "d (drop), t (create tables), g (client-side data), G (server-side data), v (vacuum), p "      \
    "(primary keys), f (foreign keys)"
/* The first pgbench with server-side generation (step G). */
#define INIT_SERVER_MAJOR 13

static int init_refuse(enum bench_init_field *field, enum bench_init_field which, char *err,
                       size_t errlen, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int init_refuse(enum bench_init_field *field, enum bench_init_field which, char *err,
                       size_t errlen, const char *fmt, ...)
{
    if (field)
        *field = which;
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(err, errlen, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
        va_end(ap);
    }
    return -EINVAL;
}

/* The steps against the generation and the pgbench: one data letter, the generation's. */
static int init_check_steps(const struct bench_pgbench_init_opts *o, enum bench_init_field *field,
                            char *err, size_t errlen)
{
    const char *st = o->steps;
    bool g = strchr(st, 'g') != NULL, G = strchr(st, 'G') != NULL;
    if (g && G)
        return init_refuse(field, BENCH_INIT_F_STEPS, err, errlen,
                           "\"%s\" has both g and G: keep one (g generates the data in pgbench, G "
                           "in the server)",
                           st);
    if (o->generation && (strcmp(o->generation, "server") == 0 ? !G : !g))
        return init_refuse(field, BENCH_INIT_F_STEPS, err, errlen,
                           "\"%s\" does not generate the data %s-side: put %c in the steps, or "
                           "leave generation out",
                           st, o->generation, strcmp(o->generation, "server") == 0 ? 'G' : 'g');
    if (G && o->pgbench_major > 0 && o->pgbench_major < INIT_SERVER_MAJOR)
        return init_refuse(field, BENCH_INIT_F_STEPS, err, errlen,
                           "\"%s\": step G (server-side generation) needs pgbench >= %d (have "
                           "%d): use g",
                           st, INIT_SERVER_MAJOR, o->pgbench_major);
    return 0;
}

int bench_pgbench_init_check(const struct bench_pgbench_init_opts *o, enum bench_init_field *field,
                             char *err, size_t errlen)
{
    const char *gen = o->generation;
    if (gen && strcmp(gen, "server") != 0 && strcmp(gen, "client") != 0)
        return init_refuse(field, BENCH_INIT_F_GENERATION, err, errlen,
                           "\"%.64s\" is not server or client", gen);
    if (gen && strcmp(gen, "server") == 0 && o->pgbench_major > 0 &&
        o->pgbench_major < INIT_SERVER_MAJOR)
        return init_refuse(field, BENCH_INIT_F_GENERATION, err, errlen,
                           "\"server\" needs pgbench >= %d for server-side generation (have "
                           "%d): use client",
                           INIT_SERVER_MAJOR, o->pgbench_major);
    if (o->steps && !valid_steps(o->steps))
        return init_refuse(field, BENCH_INIT_F_STEPS, err, errlen,
                           "\"%.64s\": use 1 to 32 of pgbench's step letters " INIT_STEP_LETTERS,
                           o->steps);
    if (o->steps && init_check_steps(o, field, err, errlen))
        return -EINVAL;
    if (o->fillfactor != 0 && (o->fillfactor < 10 || o->fillfactor > 100))
        return init_refuse(field, BENCH_INIT_F_FILLFACTOR, err, errlen,
                           "%d is not a fill factor: use 10 to 100 (percent of each page filled "
                           "at load; 100, pgbench's default, packs them)",
                           o->fillfactor);
    const char *ts[2] = {o->tablespace, o->index_tablespace};
    for (int i = 0; i < 2; i++)
        if (ts[i] && !is_ident(ts[i], strlen(ts[i])))
            return init_refuse(field, i ? BENCH_INIT_F_INDEX_TABLESPACE : BENCH_INIT_F_TABLESPACE,
                               err, errlen,
                               "\"%.64s\" is not a tablespace name: letters, digits and _, at "
                               "most 63, not starting with a digit",
                               ts[i]);
    return 0;
}

void bench_pgbench_init_steps(const struct bench_pgbench_init_opts *o, char *out, size_t n)
{
    bool server = o->generation ? strcmp(o->generation, "server") == 0
                                : !(o->pgbench_major > 0 && o->pgbench_major < INIT_SERVER_MAJOR);
    const char *st = o->steps ? o->steps : server ? "dtGvp" : "dtgvp";
    bool add_f = o->foreign_keys && !strchr(st, 'f');
    (void)snprintf(out, n, "%s%s", st, add_f ? "f" : "");
}

/* The init's table options: -F, --unlogged-tables, the tablespaces. */
static void push_init_tables(struct bench_argv *a, const struct bench_pgbench_init_opts *o)
{
    if (o->fillfactor > 0)
        push2(a, "-F", "%d", o->fillfactor);
    if (o->unlogged_tables)
        bench_argv_push(a, "--unlogged-tables");
    if (o->tablespace)
        bench_argv_pushf(a, "--tablespace=%s", o->tablespace);
    if (o->index_tablespace)
        bench_argv_pushf(a, "--index-tablespace=%s", o->index_tablespace);
}

int bench_pgbench_init_argv(const struct bench_pgbench_init_opts *o, struct bench_argv *out,
                            char *err, size_t errlen)
{
    struct bench_argv a = BENCH_ARGV_INIT;
    if (o->scale < 1)
        return util_errf(err, errlen, "scale (-s) must be >= 1");
    if (o->partitions < 0)
        return util_errf(err, errlen, "partitions must be >= 0");
    static const char *const init_names[] = {"",   "generation",   "-I",
                                             "-F", "--tablespace", "--index-tablespace"};
    enum bench_init_field which = BENCH_INIT_F_NONE;
    char why[512];
    if (bench_pgbench_init_check(o, &which, why, sizeof(why)))
        return util_errf(err, errlen, "%s %s", init_names[which], why);
    int rc = check_conn(o->host, o->port, o->user, o->dbname, err, errlen);
    if (rc)
        return rc;
    push_program(&a, o->pgbench_path, o->host, o->port, o->user);
    bench_argv_push(&a, "-i");
    push2(&a, "-s", "%d", o->scale);
    char steps[48];
    bench_pgbench_init_steps(o, steps, sizeof(steps));
    push2(&a, "-I", "%s", steps);
    if (o->quiet)
        bench_argv_push(&a, "-q");
    if (o->foreign_keys)
        bench_argv_push(&a, "--foreign-keys");
    if (o->partitions > 0)
        bench_argv_pushf(&a, "--partitions=%d", o->partitions);
    push_init_tables(&a, o);
    if (o->nextra) {
        rc = push_extra(&a, true, o->extra_args, o->nextra, 0, err, errlen);
        /* --partition-method without --partitions is refused by pgbench; say it here */
        for (size_t i = 0; !rc && i < o->nextra; i++)
            if (!strncmp(o->extra_args[i], "--partition-method", 18) && o->partitions <= 0)
                rc = util_errf(err, errlen, "--partition-method needs partitions > 0");
    }
    return finish_argv(&a, rc, o->dbname, out);
}

int bench_pgbench_version_major(const char *s)
{
    if (!s)
        return -EINVAL;
    const char *p = strstr(s, "pgbench");
    if (!p)
        return -EINVAL;
    p += 7;
    /* "pgbench (PostgreSQL) 15.18 ..." or "pgbench (15.18 (...))" */
    if (!strncmp(p, " (PostgreSQL) ", 14))
        p += 14;
    else if (!strncmp(p, " (", 2))
        p += 2;
    else
        return -EINVAL;
    if (!isdigit((unsigned char)*p))
        return -EINVAL;
    char *end;
    long major = strtol(p, &end, 10);
    if (major <= 0 || major > 1000)
        return -EINVAL;
    return (int)major;
}
