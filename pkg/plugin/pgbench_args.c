/* pgbench options -> spec.workload.pgbench.run fields, one row per option. */
#include "pkg/plugin/pgbench_args.h"
#include "pkg/util/json.h"
#include "pkg/bench/pgbench.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind {
    K_INT,      /* integer >= min into field */
    K_NUM,      /* number >= 0 into field */
    K_TRUE,     /* flag: field = true */
    K_PROTOCOL, /* -M simple|extended|prepared */
    K_BUILTIN,  /* -b name[@weight] */
    K_SELECT,   /* -S: builtin select-only */
    K_SKIP,     /* -N: builtin simple-update */
    K_SCRIPT,   /* -f configmap:key[@weight] */
    K_REFUSE,   /* known, no field: refused with hint */
};

struct row {
    char short_name; /* 0: long only */
    bool has_arg;
    enum kind kind;
    const char *long_name;
    const char *field; /* below spec.workload.pgbench.run; the hint for K_REFUSE */
    long min;
};

/* pgbench's options (pgbench.c long_options) that the spec expresses, and those refused with a
 * better hint than the allow-list's. Anything else goes to bench_pgbench_check_extra. */
static const struct row rows[] = {
    {'c', true, K_INT, "client", "clients", 1},
    {'j', true, K_INT, "jobs", "threads", 1},
    {'T', true, K_INT, "time", "durationSeconds", 1},
    {'t', true, K_INT, "transactions", "transactions", 1},
    {'M', true, K_PROTOCOL, "protocol", "protocol", 0},
    {'b', true, K_BUILTIN, "builtin", "builtin", 0},
    {'S', false, K_SELECT, "select-only", "builtin", 0},
    {'N', false, K_SKIP, "skip-some-updates", "builtin", 0},
    {'f', true, K_SCRIPT, "file", "scripts", 0},
    {'R', true, K_NUM, "rate", "rate", 0},
    {'L', true, K_NUM, "latency-limit", "latencyLimitMs", 0},
    {'n', false, K_TRUE, "no-vacuum", "noVacuum", 0},
    {'C', false, K_TRUE, "connect", "connect", 0},
    {0, true, K_INT, "max-tries", "maxTries", 0},
    {0, false, K_TRUE, "failures-detailed", "failuresDetailed", 0},
    {'r', false, K_TRUE, "report-per-command", "perStatementLatencies", 0},
    {0, false, K_TRUE, "report-latencies", "perStatementLatencies", 0},
    {'P', true, K_INT, "progress", "progressSeconds", 1},
    {'i', false, K_REFUSE, "initialize", "use kubectl pgbench run --init -s N (before --)", 0},
    {'h', true, K_REFUSE, "host",
     "the target comes from --host, --cnpg, --bitnami, --stackgres or --zalando (before --)", 0},
    {'p', true, K_REFUSE, "port", "use --port (before --)", 0},
    {'U', true, K_REFUSE, "username", "use --user (before --)", 0},
    {'l', false, K_REFUSE, "log",
     "the runner always writes the transaction log itself: percentiles come from it", 0},
};

static const struct row *find_long(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (strlen(rows[i].long_name) == n && strncmp(rows[i].long_name, name, n) == 0)
            return &rows[i];
    return NULL;
}

static const struct row *find_short(char c)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].short_name == c)
            return &rows[i];
    return NULL;
}

/* value@weight: splits off a weight (0..1000), as pgbench's -b and -f do. */
static int split_weight(const char *flag, const char *v, char *name, size_t n, long *weight,
                        char *err, size_t errlen)
{
    *weight = -1;
    const char *at = strrchr(v, '@');
    size_t len = at ? (size_t)(at - v) : strlen(v);
    if (len == 0 || len >= n)
        return util_errf(err, errlen, "%s \"%s\": expected NAME[@WEIGHT]", flag, v);
    memcpy(name, v, len);
    name[len] = '\0';
    if (at) {
        char *end;
        errno = 0;
        long w = strtol(at + 1, &end, 10);
        if (errno || end == at + 1 || *end || w < 0 || w > 1000)
            return util_errf(err, errlen, "%s \"%s\": the weight must be an integer 0-1000", flag,
                             v);
        *weight = w;
    }
    return 0;
}

/* pgbench accepts a builtin's unique prefix ("select" for select-only). */
static const char *builtin_name(const char *v)
{
    static const char *const names[] = {"tpcb-like", "simple-update", "select-only"};
    const char *found = NULL;
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(names[i], v) == 0)
            return names[i];
        if (strncmp(names[i], v, strlen(v)) == 0) {
            if (found)
                return NULL; /* ambiguous */
            found = names[i];
        }
    }
    return found;
}

static int apply_int(cJSON *run, const struct row *r, const char *flag, const char *v, char *err,
                     size_t errlen)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < r->min || n > 2147483647LL)
        return util_errf(err, errlen, "%s \"%s\": must be an integer >= %ld (spec field %s)", flag,
                         v, r->min, r->field);
    util_jset(run, r->field, cJSON_CreateNumber((double)n));
    return 0;
}

static int apply_num(cJSON *run, const struct row *r, const char *flag, const char *v, char *err,
                     size_t errlen)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d) || d < 0)
        return util_errf(err, errlen, "%s \"%s\": must be a number >= 0 (spec field %s)", flag, v,
                         r->field);
    util_jset(run, r->field, cJSON_CreateNumber(d));
    return 0;
}

static int apply_protocol(cJSON *run, const struct row *r, const char *flag, const char *v,
                          char *err, size_t errlen)
{
    if (strcmp(v, "simple") != 0 && strcmp(v, "extended") != 0 && strcmp(v, "prepared") != 0)
        return util_errf(err, errlen,
                         "%s \"%s\": the protocol is one of simple, extended, prepared", flag, v);
    util_jset(run, r->field, cJSON_CreateString(v));
    return 0;
}

static int apply_builtin(cJSON *run, const char *flag, const char *v, char *err, size_t errlen)
{
    char name[64];
    long w;
    int rc = split_weight(flag, v, name, sizeof(name), &w, err, errlen);
    if (rc)
        return rc;
    const char *b = builtin_name(name);
    if (!b)
        return util_errf(err, errlen,
                         "%s \"%s\": the builtin scripts are tpcb-like, simple-update and "
                         "select-only (custom scripts: -f configmap:key)",
                         flag, v);
    util_jset(run, "builtin", cJSON_CreateString(b));
    if (w >= 0)
        util_jset(run, "builtinWeight", cJSON_CreateNumber((double)w));
    return 0;
}

static int apply_script(cJSON *run, const char *flag, const char *v, char *err, size_t errlen)
{
    char ref[512];
    long w;
    int rc = split_weight(flag, v, ref, sizeof(ref), &w, err, errlen);
    if (rc)
        return rc;
    char *colon = strchr(ref, ':');
    if (!colon || colon == ref || !colon[1])
        return util_errf(err, errlen,
                         "%s \"%s\": a script is CONFIGMAP:KEY[@WEIGHT], the ConfigMap in the "
                         "run's namespace holding it (kubectl create configmap NAME "
                         "--from-file=KEY=script.sql); local files are not sent",
                         flag, v);
    *colon = '\0';
    cJSON *scripts = cJSON_GetObjectItemCaseSensitive(run, "scripts");
    if (!scripts) {
        scripts = cJSON_CreateArray();
        util_jset(run, "scripts", scripts);
    }
    cJSON *s = util_must(cJSON_CreateObject()), *cm = util_must(cJSON_CreateObject());
    util_jset(cm, "name", cJSON_CreateString(ref));
    util_jset(cm, "key", cJSON_CreateString(colon + 1));
    util_jset(s, "configMapRef", cm);
    if (w >= 0)
        util_jset(s, "weight", cJSON_CreateNumber((double)w));
    cJSON_AddItemToArray(scripts, s);
    return 0;
}

/* The kinds whose rows take a value (has_arg). */
static bool kind_takes_value(enum kind k)
{
    return k == K_INT || k == K_NUM || k == K_PROTOCOL || k == K_BUILTIN || k == K_SCRIPT;
}

/* Applies row r; v is its value, NULL for a row without one. */
static int apply(cJSON *run, const struct row *r, const char *flag, const char *v, char *err,
                 size_t errlen)
{
    if (!v && kind_takes_value(r->kind))
        return util_errf(err, errlen, "pgbench option %s needs a value", flag);
    switch (r->kind) {
    case K_INT:
        return apply_int(run, r, flag, v, err, errlen);
    case K_NUM:
        return apply_num(run, r, flag, v, err, errlen);
    case K_TRUE:
        util_jset(run, r->field, cJSON_CreateTrue());
        return 0;
    case K_PROTOCOL:
        return apply_protocol(run, r, flag, v, err, errlen);
    case K_SELECT:
    case K_SKIP:
        util_jset_str(run, "builtin", r->kind == K_SELECT ? "select-only" : "simple-update");
        return 0;
    case K_BUILTIN:
        return apply_builtin(run, flag, v, err, errlen);
    case K_SCRIPT:
        return apply_script(run, flag, v, err, errlen);
    case K_REFUSE:
        return util_errf(err, errlen, "pgbench option %s is not taken here: %s", flag, r->field);
    }
    return -EINVAL;
}

static void add_extra(cJSON *run, const char *arg)
{
    cJSON *extra = cJSON_GetObjectItemCaseSensitive(run, "extraArgs");
    if (!extra) {
        extra = cJSON_CreateArray();
        util_jset(run, "extraArgs", extra);
    }
    cJSON_AddItemToArray(extra, util_must(cJSON_CreateString(arg)));
}

/* An option without a row: extraArgs when the allow-list takes it, else refused naming it. */
static int passthrough(cJSON *run, const char *const *args, size_t nargs, size_t *used, char *err,
                       size_t errlen)
{
    char why[512];
    size_t consumed = 0;
    if (bench_pgbench_check_extra(false, args, nargs, &consumed, why, sizeof(why)) != 0) {
        char flag[64];
        const char *a = args[0];
        size_t n = strcspn(a, "=");
        if (a[1] != '-' && n > 2)
            n = 2; /* "-l5" names -l */
        (void)snprintf(flag, sizeof(flag), "%.*s", (int)(n < 60 ? n : 60), a);
        return util_errf(err, errlen,
                         "pgbench option %s has no BenchmarkRun field and is not allowed in "
                         "spec.workload.pgbench.run.extraArgs: %s",
                         flag, why);
    }
    for (size_t k = 0; k < consumed; k++)
        add_extra(run, args[k]);
    *used = consumed;
    return 0;
}

/* An option without a row at args[*i]: passed through, *i moved to the last argument it took. */
static int unknown_option(cJSON *run, const char *const *args, size_t nargs, size_t *i, char *err,
                          size_t errlen)
{
    size_t used = 0;
    int rc = passthrough(run, args + *i, nargs - *i, &used, err, errlen);
    if (!rc && used > 0)
        *i += used - 1;
    return rc;
}

/* --long[=value] at args[*i]; *i moves past a separate value. */
static int long_option(cJSON *run, const char *const *args, size_t nargs, size_t *i, char *err,
                       size_t errlen)
{
    const char *name = args[*i] + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const struct row *r = find_long(name, n);
    if (!r)
        return unknown_option(run, args, nargs, i, err, errlen);
    char flag[64];
    (void)snprintf(flag, sizeof(flag), "--%s", r->long_name);
    const char *v = NULL;
    if (r->has_arg) {
        if (eq)
            v = eq + 1;
        else if (*i + 1 < nargs)
            v = args[++*i];
        else
            return util_errf(err, errlen, "pgbench option %s needs a value", flag);
    } else if (eq) {
        return util_errf(err, errlen, "pgbench option %s takes no value", flag);
    }
    return apply(run, r, flag, v, err, errlen);
}

/* -x, -xVALUE, -x VALUE, bundles such as -nr at args[*i]; *i moves past a separate value. */
static int short_options(cJSON *run, const char *const *args, size_t nargs, size_t *i, char *err,
                         size_t errlen)
{
    const char *a = args[*i];
    for (const char *p = a + 1; *p; p++) {
        const struct row *r = find_short(*p);
        char flag[3] = {'-', *p, '\0'};
        if (!r) {
            if (p != a + 1) /* inside a bundle: name the option alone */
                return util_errf(err, errlen,
                                 "pgbench option %s (in %s): write it as its own argument", flag,
                                 a);
            return unknown_option(run, args, nargs, i, err, errlen);
        }
        if (!r->has_arg) {
            int rc = apply(run, r, flag, NULL, err, errlen);
            if (rc)
                return rc;
            continue;
        }
        const char *v;
        if (p[1])
            v = p + 1;
        else if (*i + 1 < nargs)
            v = args[++*i];
        else
            return util_errf(err, errlen, "pgbench option %s needs a value", flag);
        return apply(run, r, flag, v, err, errlen);
    }
    return 0;
}

int plugin_pgbench_args(cJSON *run, const char *const *args, size_t nargs, const char **dbname,
                        char *err, size_t errlen)
{
    for (size_t i = 0; i < nargs; i++) {
        const char *a = args[i];
        int rc;
        if (a[0] != '-' || a[1] == '\0') {
            if (*dbname && *dbname != a)
                return util_errf(err, errlen,
                                 "pgbench takes one database name; \"%s\" is a second one", a);
            *dbname = a;
            continue;
        }
        if (a[1] == '-')
            rc = long_option(run, args, nargs, &i, err, errlen);
        else
            rc = short_options(run, args, nargs, &i, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}
