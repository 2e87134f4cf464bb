/* pgbench options -> spec.workload.pgbench.run fields, one util/opt row per option. */
#include "pkg/plugin/pgbench_args.h"
#include "pkg/util/json.h"
#include "pkg/bench/pgbench.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"
#include "pkg/util/opt.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static util_opt_cb put_int, put_num, put_true, put_protocol, put_builtin, put_script, refuse;

/* A spec field's row: pgbench's short and long name, the callback that writes the field (named by
 * data) into spec.workload.pgbench.run (the parse's base), whether it takes a value, its least
 * value. */
#define ROW(s, l, c, f, fl, least)                                                                 \
    {                                                                                              \
        .shrt = (s), .name = (l), .type = UTIL_OPT_CALL, .flags = (fl), .min = (least), .cb = (c), \
        .data = (f)                                                                                \
    }
#define VAL UTIL_OPT_VALUE

/* pgbench's options (pgbench.c long_options) that the spec expresses, and those refused with a
 * better hint than the allow-list's (the hint is their data). Anything else goes to
 * bench_pgbench_check_extra. */
static const struct util_opt rows[] = {
    ROW('c', "client", put_int, "clients", VAL, 1),
    ROW('j', "jobs", put_int, "threads", VAL, 1),
    ROW('T', "time", put_int, "durationSeconds", VAL, 1),
    ROW('t', "transactions", put_int, "transactions", VAL, 1),
    ROW('M', "protocol", put_protocol, "protocol", VAL, 0),
    ROW('b', "builtin", put_builtin, "builtin", VAL, 0),
    ROW('S', "select-only", put_builtin, "select-only", 0, 0),
    ROW('N', "skip-some-updates", put_builtin, "simple-update", 0, 0),
    ROW('f', "file", put_script, "scripts", VAL, 0),
    ROW('R', "rate", put_num, "rate", VAL, 0),
    ROW('L', "latency-limit", put_num, "latencyLimitMs", VAL, 0),
    ROW('n', "no-vacuum", put_true, "noVacuum", 0, 0),
    ROW('C', "connect", put_true, "connect", 0, 0),
    ROW(0, "max-tries", put_int, "maxTries", VAL, 0),
    ROW(0, "failures-detailed", put_true, "failuresDetailed", 0, 0),
    ROW('r', "report-per-command", put_true, "perStatementLatencies", 0, 0),
    ROW(0, "report-latencies", put_true, "perStatementLatencies", 0, 0),
    ROW('P', "progress", put_int, "progressSeconds", VAL, 1),
    ROW('i', "initialize", refuse, "use kubectl pgbench run --init -s N (before --)", 0, 0),
    ROW('h', "host", refuse,
        "the target comes from --host, --cnpg, --bitnami, --stackgres or --zalando (before --)",
        VAL, 0),
    ROW('p', "port", refuse, "use --port (before --)", VAL, 0),
    ROW('U', "username", refuse, "use --user (before --)", VAL, 0),
    ROW('l', "log", refuse,
        "the runner always writes the transaction log itself: percentiles come from it", 0, 0),
};

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

static int put_int(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                   size_t errlen)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || (double)n < o->min || n > 2147483647LL)
        return util_errf(err, errlen, "%s \"%s\": must be an integer >= %.0f (spec field %s)", flag,
                         v, o->min, (const char *)o->data);
    util_jset(base, o->data, cJSON_CreateNumber((double)n));
    return 0;
}

static int put_num(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                   size_t errlen)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d) || d < 0)
        return util_errf(err, errlen, "%s \"%s\": must be a number >= 0 (spec field %s)", flag, v,
                         (const char *)o->data);
    util_jset(base, o->data, cJSON_CreateNumber(d));
    return 0;
}

static int put_true(void *base, const struct util_opt *o, const char *flag, const char *v,
                    char *err, size_t errlen)
{
    (void)flag, (void)v, (void)err, (void)errlen;
    util_jset(base, o->data, cJSON_CreateTrue());
    return 0;
}

static int put_protocol(void *base, const struct util_opt *o, const char *flag, const char *v,
                        char *err, size_t errlen)
{
    if (strcmp(v, "simple") != 0 && strcmp(v, "extended") != 0 && strcmp(v, "prepared") != 0)
        return util_errf(err, errlen,
                         "%s \"%s\": the protocol is one of simple, extended, prepared", flag, v);
    util_jset(base, o->data, cJSON_CreateString(v));
    return 0;
}

/* -b NAME[@W]; -S and -N (no value: their builtin is their data). */
static int put_builtin(void *base, const struct util_opt *o, const char *flag, const char *v,
                       char *err, size_t errlen)
{
    if (!v) {
        util_jset_str(base, "builtin", o->data);
        return 0;
    }
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
    util_jset(base, "builtin", cJSON_CreateString(b));
    if (w >= 0)
        util_jset(base, "builtinWeight", cJSON_CreateNumber((double)w));
    return 0;
}

static int put_script(void *base, const struct util_opt *o, const char *flag, const char *v,
                      char *err, size_t errlen)
{
    (void)o;
    cJSON *run = base;
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
    cJSON *s = cJSON_CreateObject(), *cm = cJSON_CreateObject();
    util_jset(cm, "name", cJSON_CreateString(ref));
    util_jset(cm, "key", cJSON_CreateString(colon + 1));
    util_jset(s, "configMapRef", cm);
    if (w >= 0)
        util_jset(s, "weight", cJSON_CreateNumber((double)w));
    cJSON_AddItemToArray(scripts, s);
    return 0;
}

/* Known to pgbench, no field: refused with the hint (the row's data). */
static int refuse(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                  size_t errlen)
{
    (void)base, (void)v;
    char name[64];
    (void)snprintf(name, sizeof(name), "%.*s", (int)strcspn(flag, "="), flag);
    return util_errf(err, errlen, "pgbench option %s is not taken here: %s", name,
                     (const char *)o->data);
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

struct pstate {
    cJSON *run;
    const char **dbname;
};

/* An option without a row: extraArgs when the allow-list takes it (with the words it takes). */
static int unknown(void *ctx, char **argv, int argc, int *used, char *err, size_t errlen)
{
    struct pstate *st = ctx;
    size_t n = 0;
    int rc = passthrough(st->run, (const char *const *)argv, (size_t)argc, &n, err, errlen);
    *used = (int)n;
    return rc;
}

/* One non-option argument: the database. */
static int database(void *ctx, const char *word, char *err, size_t errlen)
{
    struct pstate *st = ctx;
    if (*st->dbname && *st->dbname != word)
        return util_errf(err, errlen, "pgbench takes one database name; \"%s\" is a second one",
                         word);
    *st->dbname = word;
    return 0;
}

int plugin_pgbench_args(cJSON *run, const char *const *args, size_t nargs, const char **dbname,
                        char *err, size_t errlen)
{
    /* the parser's argv[0] is the command: args come after a placeholder */
    char **argv = util_xcalloc(nargs + 2, sizeof(*argv));
    argv[0] = (char *)"pgbench";
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = (char *)args[i];
    struct pstate st = {run, dbname};
    struct util_opt_set set = {rows, UTIL_OPT_N(rows), run};
    struct util_opt_parse p = {.sets = &set,
                               .nsets = 1,
                               .bundles = true,
                               .no_help = true,
                               .word = database,
                               .unknown = unknown,
                               .ctx = &st};
    int rc = util_opt_parse(&p, (int)nargs + 1, argv, err, errlen);
    for (int i = p.next; !rc && i <= (int)nargs; i++) /* after "--": words */
        rc = database(&st, argv[i], err, errlen);
    free(argv);
    return rc ? -EINVAL : 0;
}
