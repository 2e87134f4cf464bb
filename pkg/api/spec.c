/* BenchmarkRun spec parsing: types and ranges field by field, then combinations, then defaults. */
#include "pkg/api/spec.h"
#include "pkg/bench/fio.h"
#include "pkg/bench/pgbench.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pctx {
    char *err;
    size_t errlen;
    int rc;
};

static void perr(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void perr(struct pctx *p, const char *fmt, ...)
{
    if (p->rc)
        return; /* keep the first error */
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(p->err, p->errlen, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    p->rc = -EINVAL;
}

static const cJSON *obj_field(struct pctx *p, const cJSON *o, const char *key, const char *path)
{
    if (!o)
        return NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v && cJSON_IsNull(v))
        return NULL;
    if (v && !cJSON_IsObject(v)) {
        perr(p, "%s.%s: must be an object", path, key);
        return NULL;
    }
    return v;
}

static const char *str_field(struct pctx *p, const cJSON *o, const char *key, const char *path,
                             const char *def)
{
    if (!o)
        return def;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return def;
    if (!cJSON_IsString(v)) {
        perr(p, "%s.%s: must be a string", path, key);
        return def;
    }
    return v->valuestring;
}

static bool bool_field(struct pctx *p, const cJSON *o, const char *key, const char *path, bool def)
{
    if (!o)
        return def;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return def;
    if (!cJSON_IsBool(v)) {
        perr(p, "%s.%s: must be true or false", path, key);
        return def;
    }
    return cJSON_IsTrue(v);
}

static bool has_field(const cJSON *o, const char *key)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return v && !cJSON_IsNull(v);
}

/* Integer in [min, max]; `def` when absent. */
static long int_field(struct pctx *p, const cJSON *o, const char *key, const char *path, long def,
                      long min, long max)
{
    if (!o)
        return def;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return def;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble)) {
        perr(p, "%s.%s: must be an integer", path, key);
        return def;
    }
    double d = v->valuedouble;
    if (d < (double)min || d > (double)max) {
        perr(p, "%s.%s: must be between %ld and %ld (got %.0f)", path, key, min, max, d);
        return def;
    }
    return (long)d;
}

static double num_field(struct pctx *p, const cJSON *o, const char *key, const char *path,
                        double def, double min, double max)
{
    if (!o)
        return def;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return def;
    if (!cJSON_IsNumber(v)) {
        perr(p, "%s.%s: must be a number", path, key);
        return def;
    }
    if (v->valuedouble < min || v->valuedouble > max) {
        perr(p, "%s.%s: must be between %g and %g (got %g)", path, key, min, max, v->valuedouble);
        return def;
    }
    return v->valuedouble;
}

static bool one_of(const char *v, const char *const *allowed)
{
    for (; *allowed; allowed++)
        if (strcmp(v, *allowed) == 0)
            return true;
    return false;
}

static void enum_check(struct pctx *p, const char *v, const char *path, const char *key,
                       const char *const *allowed)
{
    if (!v || one_of(v, allowed))
        return;
    char list[256] = "";
    for (const char *const *a = allowed; *a; a++) {
        if (a != allowed)
            (void)strncat(list, ", ", sizeof(list) - strlen(list) - 1);
        (void)strncat(list, *a, sizeof(list) - strlen(list) - 1);
    }
    perr(p, "%s.%s: \"%s\" is not one of %s", path, key, v, list);
}

/* A DNS-1123 subdomain (object names). */
static bool dns_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        if (!ok)
            return false;
    }
    return s[0] != '-' && s[0] != '.' && s[n - 1] != '-' && s[n - 1] != '.';
}

/* A Kubernetes quantity of bytes as the CRD's pattern takes it: an optional '+', a decimal
 * number (10, 1.5, .5), an optional suffix Ki Mi Gi Ti Pi Ei (powers of 1024) or k M G T P E
 * (powers of 1000). *bytes gets its value (fractions of a byte rounded up). */
static bool quantity_bytes(const char *s, double *bytes)
{
    const char *p = s + (*s == '+');
    const char *num = p;
    size_t digits = 0, dots = 0;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.')
            dots++;
        else
            digits++;
    }
    if (digits == 0 || dots > 1 || p - num > 40)
        return false;
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {{"", 1},        {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40},
                 {"Pi", 0x1p50}, {"Ei", 0x1p60}, {"k", 1e3},     {"M", 1e6},     {"G", 1e9},
                 {"T", 1e12},    {"P", 1e15},    {"E", 1e18}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(p, units[i].suffix) == 0) {
            char n[48];
            (void)snprintf(n, sizeof(n), "%.*s", (int)(p - num), num);
            *bytes = ceil(strtod(n, NULL) * units[i].mult);
            return true;
        }
    }
    return false;
}

/* fio sizes: 8k, 4m, 1g, 512 (fio's own suffixes, case-insensitive, optional trailing b/ib). */
static bool fio_size(const char *s)
{
    const char *p = s;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p && strchr("kKmMgGtT", *p))
        p++;
    if (*p == 'i')
        p++;
    if (*p == 'b' || *p == 'B')
        p++;
    return *p == '\0';
}

static void secret_ref(struct pctx *p, const cJSON *ref, const char *path, const char *defkey,
                       const char **name, const char **key)
{
    *name = str_field(p, ref, "name", path, NULL);
    *key = str_field(p, ref, "key", path, defkey);
    if (ref && (!*name || !**name))
        perr(p, "%s.name: required: name the Secret in the BenchmarkRun's namespace", path);
    else if (*name && !dns_name(*name))
        perr(p, "%s.name: \"%s\" is not a valid object name", path, *name);
    else if (*key && !**key)
        perr(p, "%s.key: must not be empty", path);
}

/* target.database and target.user: names, never connection strings (bench_conn_check_name). */
static void conn_name(struct pctx *p, const char *key, const char *v, char *out, size_t outlen)
{
    char why[256];
    if (bench_conn_check_name(v, why, sizeof(why)))
        perr(p, "spec.target.%s \"%.80s\": %s", key, v, why);
    else
        (void)snprintf(out, outlen, "%s", v); /* fits: at most 63 bytes */
}

/* One scalar field of an object, as a row: its key, its type with its range or allowed words,
 * its default, and where it goes (an offset into the struct being filled). parse_fields() reads
 * the rows in order, so the first error is the one field-by-field code would report. */
enum fkind {
    FK_INT,  /* int, an integer in [min, max] */
    FK_LONG, /* long, an integer in [min, max] */
    FK_NUM,  /* double in [min, max] */
    FK_BOOL, /* bool, default def != 0 */
    FK_STR,  /* const char *, default sdef; one of choices when set; valid() when set */
};

struct field {
    const char *key;
    enum fkind kind;
    size_t off;
    double def, min, max;
    const char *sdef;
    const char *const *choices; /* NULL-terminated */
    bool (*valid)(const char *v);
    const char *invalid; /* "<path>.<key>: \"<v>\" <invalid>" when valid() refuses v */
};

#define SPEC(f) offsetof(struct api_spec, f)
#define JOB(f) offsetof(struct api_fio_job, f)
#define NFIELDS(rows) (sizeof(rows) / sizeof((rows)[0]))
#define FIELD_AT(base, off, type) ((type *)(void *)((char *)(base) + (off)))

static void parse_str_row(struct pctx *p, const cJSON *o, const char *path, const struct field *f,
                          void *base)
{
    const char *v = str_field(p, o, f->key, path, f->sdef);
    *FIELD_AT(base, f->off, const char *) = v;
    if (f->choices)
        enum_check(p, v, path, f->key, f->choices);
    if (v && f->valid && !f->valid(v))
        perr(p, "%s.%s: \"%s\" %s", path, f->key, v, f->invalid);
}

static void parse_fields(struct pctx *p, const cJSON *o, const char *path, const struct field *rows,
                         size_t n, void *base)
{
    for (const struct field *f = rows; f < rows + n; f++) {
        switch (f->kind) {
        case FK_INT:
            *FIELD_AT(base, f->off, int) =
                (int)int_field(p, o, f->key, path, (long)f->def, (long)f->min, (long)f->max);
            break;
        case FK_LONG:
            *FIELD_AT(base, f->off, long) =
                int_field(p, o, f->key, path, (long)f->def, (long)f->min, (long)f->max);
            break;
        case FK_NUM:
            *FIELD_AT(base, f->off, double) = num_field(p, o, f->key, path, f->def, f->min, f->max);
            break;
        case FK_BOOL:
            *FIELD_AT(base, f->off, bool) = bool_field(p, o, f->key, path, f->def != 0);
            break;
        case FK_STR:
            parse_str_row(p, o, path, f, base);
            break;
        }
    }
}

static const char *const ssl_modes[] = {"disable",   "allow",       "prefer", "require",
                                        "verify-ca", "verify-full", NULL};
static const struct field target_rows[] = {
    {"sslMode", FK_STR, SPEC(ssl_mode), 0, 0, 0, "prefer", ssl_modes, NULL, NULL},
    {"port", FK_INT, SPEC(port), 5432, 1, 65535, NULL, NULL, NULL, NULL},
    {"createDatabase", FK_BOOL, SPEC(create_database), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"connectRetrySeconds", FK_LONG, SPEC(connect_retry_s), API_CONNECT_RETRY_S, 0, 3600, NULL,
     NULL, NULL, NULL},
};

/* target.cnpg: host, database, user and password Secret from the CloudNativePG conventions. */
static void target_cnpg(struct pctx *p, const cJSON *t, const cJSON *cnpg, struct api_spec *s)
{
    s->cnpg = true;
    const char *cluster = str_field(p, cnpg, "clusterName", "spec.target.cnpg", NULL);
    if (!cluster || !*cluster) {
        perr(p, "spec.target.cnpg.clusterName: required: the CloudNativePG Cluster's name");
        return;
    }
    if (!dns_name(cluster) || strlen(cluster) > 200) {
        perr(p, "spec.target.cnpg.clusterName: \"%s\" is not a valid object name", cluster);
        return;
    }
    s->cnpg_cluster = cluster;
    static const char *const svc[] = {"rw", "ro", "r", NULL};
    static const char *const sec[] = {"app", "superuser", NULL};
    const char *service = str_field(p, cnpg, "service", "spec.target.cnpg", "rw");
    const char *secret = str_field(p, cnpg, "secret", "spec.target.cnpg", "app");
    enum_check(p, service, "spec.target.cnpg", "service", svc);
    enum_check(p, secret, "spec.target.cnpg", "secret", sec);
    if (p->rc)
        return;
    if (has_field(t, "passwordSecretRef"))
        perr(p,
             "spec.target.passwordSecretRef: the password comes from the CloudNativePG "
             "Secret %s-%s (key password); remove it or use target.host instead of "
             "target.cnpg",
             cluster, secret);
    (void)snprintf(s->host, sizeof(s->host), "%s-%s", cluster, service);
    conn_name(p, "database", str_field(p, t, "database", "spec.target", "app"), s->database,
              sizeof(s->database));
    /* the role: target.user when set (an override), else the Secret's username key, read
     * by the pods (PGUSER from a secretKeyRef), never by the operator */
    const char *user = str_field(p, t, "user", "spec.target", NULL);
    if (user && *user)
        conn_name(p, "user", user, s->user, sizeof(s->user));
    else if (user)
        perr(p, "spec.target.user: must not be empty; omit it to use the Secret's username");
    else
        s->user_key = "username";
    (void)snprintf(s->password_secret, sizeof(s->password_secret), "%s-%s", cluster, secret);
}

/* target.host with its database, user and passwordSecretRef. */
static void target_host(struct pctx *p, const cJSON *t, struct api_spec *s)
{
    const char *host = str_field(p, t, "host", "spec.target", NULL);
    char why[256];
    if (!host || !*host) {
        perr(p, "spec.target.host: must be a DNS name or IP address, e.g. pg-rw.db.svc");
        return;
    }
    if (bench_conn_check_host(host, false, why, sizeof(why)) || strlen(host) >= sizeof(s->host)) {
        perr(p, "spec.target.host \"%.80s\": %s; give a DNS name or IP address, e.g. pg-rw.db.svc",
             host, strlen(host) >= sizeof(s->host) ? "too long" : why);
        return;
    }
    (void)snprintf(s->host, sizeof(s->host), "%s", host);
    const char *user = str_field(p, t, "user", "spec.target", NULL);
    if (!user || !*user)
        perr(p, "spec.target.user: required with target.host: the PostgreSQL role to connect as");
    else
        conn_name(p, "user", user, s->user, sizeof(s->user));
    /* libpq's rule (and pgbench's): without a database name, the user name */
    conn_name(p, "database", str_field(p, t, "database", "spec.target", s->user), s->database,
              sizeof(s->database));
    const cJSON *pw = obj_field(p, t, "passwordSecretRef", "spec.target");
    if (pw) {
        const char *name = NULL;
        secret_ref(p, pw, "spec.target.passwordSecretRef", "password", &name, &s->password_key);
        if (name)
            (void)snprintf(s->password_secret, sizeof(s->password_secret), "%s", name);
    }
}

static void parse_target(struct pctx *p, const cJSON *spec, struct api_spec *s)
{
    const cJSON *t = obj_field(p, spec, "target", "spec");
    if (!t) {
        perr(p, "spec.target: required: set target.host (with user and passwordSecretRef) or "
                "target.cnpg.clusterName");
        return;
    }
    const cJSON *cnpg = obj_field(p, t, "cnpg", "spec.target");
    bool host_set = has_field(t, "host");
    if (host_set == (cnpg != NULL)) {
        perr(p, "spec.target: set exactly one of host or cnpg");
        return;
    }
    parse_fields(p, t, "spec.target", target_rows, NFIELDS(target_rows), s);
    s->password_key = "password";

    const cJSON *ca = obj_field(p, t, "caSecretRef", "spec.target");
    if (ca)
        secret_ref(p, ca, "spec.target.caSecretRef", "ca.crt", &s->ca_secret, &s->ca_key);
    if (!ca && s->ssl_mode &&
        (strcmp(s->ssl_mode, "verify-ca") == 0 || strcmp(s->ssl_mode, "verify-full") == 0))
        perr(p,
             "spec.target.caSecretRef: required with sslMode %s: name the Secret holding the "
             "CA certificate",
             s->ssl_mode);

    if (cnpg)
        target_cnpg(p, t, cnpg, s);
    else
        target_host(p, t, s);
}

static const char *const generations[] = {"server", "client", NULL};
static const struct field init_rows[] = {
    {"scale", FK_INT, SPEC(scale), 1, 1, 100000, NULL, NULL, NULL, NULL},
    {"foreignKeys", FK_BOOL, SPEC(foreign_keys), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"skipIfInitialized", FK_BOOL, SPEC(skip_if_initialized), 1, 0, 0, NULL, NULL, NULL, NULL},
    {"partitions", FK_INT, SPEC(partitions), 0, 0, 10000, NULL, NULL, NULL, NULL},
    {"generation", FK_STR, SPEC(init_generation), 0, 0, 0, NULL, generations, NULL, NULL},
    {"steps", FK_STR, SPEC(init_steps), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"fillfactor", FK_INT, SPEC(init_fillfactor), 0, 10, 100, NULL, NULL, NULL, NULL},
    {"unloggedTables", FK_BOOL, SPEC(init_unlogged), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"tablespace", FK_STR, SPEC(init_tablespace), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"indexTablespace", FK_STR, SPEC(init_index_tablespace), 0, 0, 0, NULL, NULL, NULL, NULL},
};

void api_spec_init_opts(const struct api_spec *s, struct bench_pgbench_init_opts *o)
{
    o->scale = s->scale;
    o->foreign_keys = s->foreign_keys;
    o->partitions = s->partitions;
    o->generation = s->init_generation;
    o->steps = s->init_steps;
    o->fillfactor = s->init_fillfactor;
    o->unlogged_tables = s->init_unlogged;
    o->tablespace = s->init_tablespace;
    o->index_tablespace = s->init_index_tablespace;
}

/* init's options together, by the runner's own check (pkg/bench), so that what it would refuse
 * never starts: the steps' letters against the generation, the tablespace names. */
static void init_check(struct pctx *p, const struct api_spec *s)
{
    static const char *const keys[] = {
        [BENCH_INIT_F_GENERATION] = "generation",
        [BENCH_INIT_F_STEPS] = "steps",
        [BENCH_INIT_F_FILLFACTOR] = "fillfactor",
        [BENCH_INIT_F_TABLESPACE] = "tablespace",
        [BENCH_INIT_F_INDEX_TABLESPACE] = "indexTablespace",
    };
    struct bench_pgbench_init_opts o = {0};
    api_spec_init_opts(s, &o);
    enum bench_init_field which = BENCH_INIT_F_NONE;
    char why[512];
    if (bench_pgbench_init_check(&o, &which, why, sizeof(why)))
        perr(p, "spec.workload.pgbench.init.%s: %s", keys[which], why);
}

static const char *const builtins[] = {"tpcb-like", "simple-update", "select-only", NULL};
static const char *const protocols[] = {"simple", "extended", "prepared", NULL};
/* run's fields up to latencyLimitMs, checked against rate before the rest are read */
static const struct field run_rows[] = {
    {"durationSeconds", FK_LONG, SPEC(duration_s), 0, 1, 7L * 86400, NULL, NULL, NULL, NULL},
    {"transactions", FK_LONG, SPEC(transactions), 0, 1, 1000000000L, NULL, NULL, NULL, NULL},
    {"clients", FK_INT, SPEC(clients), 1, 1, 100000, NULL, NULL, NULL, NULL},
    {"threads", FK_INT, SPEC(threads), 1, 1, 1024, NULL, NULL, NULL, NULL},
    {"builtinWeight", FK_INT, SPEC(builtin_weight), 1, 0, 1000, NULL, NULL, NULL, NULL},
    {"builtin", FK_STR, SPEC(builtin), 0, 0, 0, NULL, builtins, NULL, NULL},
    {"protocol", FK_STR, SPEC(protocol), 0, 0, 0, "simple", protocols, NULL, NULL},
    {"rate", FK_NUM, SPEC(rate), 0, 0, 1e9, NULL, NULL, NULL, NULL},
    {"latencyLimitMs", FK_NUM, SPEC(latency_limit_ms), 0, 0, 3.6e6, NULL, NULL, NULL, NULL},
};
static const struct field run_rows2[] = {
    {"noVacuum", FK_BOOL, SPEC(no_vacuum), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"connect", FK_BOOL, SPEC(connect), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"maxTries", FK_INT, SPEC(max_tries), 1, 0, 1000000, NULL, NULL, NULL, NULL},
    {"failuresDetailed", FK_BOOL, SPEC(failures_detailed), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"perStatementLatencies", FK_BOOL, SPEC(per_statement), 0, 0, 0, NULL, NULL, NULL, NULL},
    {"progressSeconds", FK_INT, SPEC(progress_s), 1, 1, 3600, NULL, NULL, NULL, NULL},
    {"warmupSeconds", FK_INT, SPEC(warmup_s), 0, 0, 86400, NULL, NULL, NULL, NULL},
};

/* run.scripts[i] (path ip): its ConfigMap reference and weight; false after an error. */
static bool script_ref(struct pctx *p, const cJSON *it, const char *ip, struct api_script *out)
{
    if (!cJSON_IsObject(it)) {
        perr(p, "%s: must be an object {configMapRef: {name, key}, weight}", ip);
        return false;
    }
    const cJSON *ref = obj_field(p, it, "configMapRef", ip);
    char rp2[128];
    (void)snprintf(rp2, sizeof(rp2), "%s.configMapRef", ip);
    const char *name = str_field(p, ref, "name", rp2, NULL);
    const char *key = str_field(p, ref, "key", rp2, NULL);
    if (!ref || !name || !*name) {
        perr(p, "%s.configMapRef.name: required: the ConfigMap holding the script", ip);
        return false;
    }
    if (!dns_name(name)) {
        perr(p, "%s.configMapRef.name: \"%s\" is not a valid object name", ip, name);
        return false;
    }
    if (!key || !*key || strchr(key, '/') || strcmp(key, ".") == 0 || strcmp(key, "..") == 0) {
        perr(p, "%s.configMapRef.key: required: the ConfigMap key (a file name) of the script", ip);
        return false;
    }
    out->configmap = name;
    out->key = key;
    out->weight = (int)int_field(p, it, "weight", ip, 1, 0, 1000);
    return true;
}

/* run.scripts; false after an error that ends the pgbench section. */
static bool pgbench_scripts(struct pctx *p, const cJSON *run, const char *rp, struct api_spec *s)
{
    const cJSON *scripts = cJSON_GetObjectItemCaseSensitive(run, "scripts");
    if (!scripts || cJSON_IsNull(scripts))
        return true;
    if (!cJSON_IsArray(scripts)) {
        perr(p, "%s.scripts: must be a list of {configMapRef: {name, key}, weight}", rp);
        return false;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, scripts)
    {
        char ip[96];
        (void)snprintf(ip, sizeof(ip), "%s.scripts[%d]", rp, i);
        if (i >= API_MAX_SCRIPTS) {
            perr(p, "%s.scripts: at most %d scripts", rp, API_MAX_SCRIPTS);
            return false;
        }
        if (!script_ref(p, it, ip, &s->scripts[i]))
            return false;
        i++;
    }
    s->n_scripts = i;
    return true;
}

/* weights are honoured as given, 0 included, so refuse what pgbench would refuse */
static void pgbench_weights(struct pctx *p, const cJSON *run, const char *rp,
                            const struct api_spec *s)
{
    if (has_field(run, "builtinWeight") && (!s->builtin || s->n_scripts == 0))
        perr(p,
             "%s.builtinWeight: the weight of run.builtin beside run.scripts (-b name@weight); "
             "set both builtin and scripts, or remove builtinWeight",
             rp);
    if (s->n_scripts > 0) {
        long total = s->builtin ? s->builtin_weight : 0;
        for (int k = 0; k < s->n_scripts; k++)
            total += s->scripts[k].weight;
        if (total == 0)
            perr(p,
                 "%s: total script weight must not be zero (pgbench refuses to run): %s weight "
                 "0; give one a weight above 0",
                 rp, s->builtin ? "every script and the builtin have" : "every script has");
    }
}

/* The runner's allow-list (pkg/bench) over the n collected extraArgs, so that what it would
 * refuse never starts; false after an error. */
static bool extra_args_allowed(struct pctx *p, const char *rp, const struct api_spec *s, int n)
{
    for (int k = 0; k < n;) {
        char flag[64], e[768];
        size_t used = 1;
        if (bench_pgbench_extra_managed(false, s->extra_args[k], flag, sizeof(flag))) {
            perr(p,
                 "%s.extraArgs[%d]: %s is set by the operator; use the matching field of "
                 "spec.workload.pgbench.run instead",
                 rp, k, flag);
            return false;
        }
        if (bench_pgbench_check_extra(false, s->extra_args + k, (size_t)(n - k), &used, e,
                                      sizeof(e))) {
            perr(p, "%s.extraArgs[%d]: %s", rp, k, e);
            return false;
        }
        k += (int)used;
    }
    return true;
}

static void pgbench_extra_args(struct pctx *p, const cJSON *run, const char *rp, struct api_spec *s)
{
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(run, "extraArgs");
    if (!extra || cJSON_IsNull(extra))
        return;
    if (!cJSON_IsArray(extra)) {
        perr(p, "%s.extraArgs: must be a list of strings", rp);
        return;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, extra)
    {
        if (i >= API_MAX_EXTRA_ARGS) {
            perr(p, "%s.extraArgs: at most %d arguments", rp, API_MAX_EXTRA_ARGS);
            return;
        }
        if (!cJSON_IsString(it) || !it->valuestring[0]) {
            perr(p, "%s.extraArgs[%d]: must be a non-empty string", rp, i);
            return;
        }
        s->extra_args[i++] = it->valuestring;
    }
    if (extra_args_allowed(p, rp, s, i))
        s->n_extra_args = i;
}

static void parse_pgbench(struct pctx *p, const cJSON *pg, struct api_spec *s)
{
    const char *path = "spec.workload.pgbench";
    const cJSON *init = obj_field(p, pg, "init", path);
    if (init) {
        s->init = true;
        parse_fields(p, init, "spec.workload.pgbench.init", init_rows, NFIELDS(init_rows), s);
        init_check(p, s);
    }
    const cJSON *run = obj_field(p, pg, "run", path);
    if (!run) {
        perr(p, "spec.workload.pgbench.run: required: set at least run.durationSeconds or "
                "run.transactions");
        return;
    }
    const char *rp = "spec.workload.pgbench.run";
    bool has_d = has_field(run, "durationSeconds"), has_t = has_field(run, "transactions");
    if (has_d == has_t) {
        perr(p, "spec.workload.pgbench.run: set exactly one of durationSeconds or transactions");
        return;
    }
    parse_fields(p, run, rp, run_rows, NFIELDS(run_rows), s);
    if (s->latency_limit_ms > 0 && s->rate <= 0)
        perr(p, "spec.workload.pgbench.run.latencyLimitMs: only allowed with rate (pgbench -L "
                "needs -R): set run.rate or remove latencyLimitMs");
    parse_fields(p, run, rp, run_rows2, NFIELDS(run_rows2), s);
    if (s->max_tries == 0 && !has_d && s->latency_limit_ms <= 0)
        perr(p, "spec.workload.pgbench.run.maxTries: 0 (unlimited) needs durationSeconds or "
                "latencyLimitMs, as in pgbench");
    if (s->warmup_s > 0 && has_d && s->warmup_s >= s->duration_s)
        perr(p,
             "spec.workload.pgbench.run.warmupSeconds: %d leaves nothing of durationSeconds %ld to "
             "measure: make it smaller than durationSeconds",
             s->warmup_s, s->duration_s);
    if (!pgbench_scripts(p, run, rp, s))
        return;
    pgbench_weights(p, run, rp, s);
    if (!s->builtin && s->n_scripts == 0)
        s->builtin = "tpcb-like";
    if (s->threads > s->clients)
        s->threads = s->clients;
    pgbench_extra_args(p, run, rp, s);
}

/* "1.5 GiB", "512 MiB": for messages about sizes. */
static void human_bytes(double b, char *out, size_t len)
{
    if (b >= 0x1p30)
        (void)snprintf(out, len, "%.3g GiB", b / 0x1p30);
    else
        (void)snprintf(out, len, "%.4g MiB", b / 0x1p20);
}

/* Room the filesystem keeps for itself on the fio volume: ext4 (mkfs.ext4 defaults) leaves a
 * non-root user 90.1 % of a 1 GiB volume and 84.8 % of 256 MiB (5 % reserved for root, which
 * the runner is not, plus the journal and inode tables); XFS keeps less. */
#define FIO_HEADROOM_PCT 10.0
#define FIO_HEADROOM_BYTES 0x1p25 /* 32 MiB */

/* The runner passes every job to one fio with --directory=<the volume>: each of a job's numjobs
 * clones writes its own file of `size` bytes there (<job>.<clone>.0), and fio leaves the files
 * in place (unlink=0) while the next job runs, so all jobs' files are on the volume at once. */
static void fio_jobs_fit(struct pctx *p, const struct api_spec *s, double volume)
{
    double usable = volume * (1 - FIO_HEADROOM_PCT / 100) - FIO_HEADROOM_BYTES;
    double total = 0;
    for (int i = 0; i < s->n_fio_jobs; i++) {
        const struct api_fio_job *j = &s->fio_jobs[i];
        uint64_t size;
        if (bench_fio_size_bytes(j->size, &size)) {
            perr(p, "spec.workload.fio.jobs[%d].size: \"%s\" is too large", i, j->size);
            return;
        }
        double need = (double)size * j->numjobs;
        total += need;
        if (total <= usable)
            continue;
        /* the smallest volume that holds them, in whole Gi (Mi below 1 Gi) */
        double min = (total + FIO_HEADROOM_BYTES) / (1 - FIO_HEADROOM_PCT / 100);
        double unit = min >= 0x1p30 ? 0x1p30 : 0x1p20;
        char h_need[32], h_total[32], h_usable[32], before[64] = "";
        human_bytes(need, h_need, sizeof(h_need));
        human_bytes(total, h_total, sizeof(h_total));
        human_bytes(usable > 0 ? usable : 0, h_usable, sizeof(h_usable));
        if (i > 0)
            (void)snprintf(before, sizeof(before), ", %s with the jobs before it,", h_total);
        perr(p,
             "spec.workload.fio.jobs[%d] (%.40s): size %s x numjobs %d = %s%s does not fit "
             "volumeSize %s: %s of it are usable after the filesystem's headroom of %g %% + 32 "
             "MiB (ext4 reserves 5 %% for root, which the runner is not, plus its journal and "
             "inode tables); fio keeps every job's files on the volume. Raise volumeSize to "
             "%.0f%s or lower size or numjobs",
             i, j->name ? j->name : "?", j->size, j->numjobs, h_need, before, s->volume_size,
             h_usable, FIO_HEADROOM_PCT, ceil(min / unit), unit == 0x1p30 ? "Gi" : "Mi");
        return;
    }
}

static const char *const fio_rws[] = {"read", "write",  "randread", "randwrite",
                                      "rw",   "randrw", NULL};
static const char *const fio_engines[] = {"libaio", "io_uring", "psync", "sync", "posixaio", NULL};
static const struct field job_rows[] = {
    {"rw", FK_STR, JOB(rw), 0, 0, 0, "randrw", fio_rws, NULL, NULL},
    {"bs", FK_STR, JOB(bs), 0, 0, 0, "8k", NULL, fio_size, "is not a block size; write e.g. 8k"},
    {"size", FK_STR, JOB(size), 0, 0, 0, "1g", NULL, fio_size, "is not a size; write e.g. 1G"},
    {"ioengine", FK_STR, JOB(ioengine), 0, 0, 0, "libaio", fio_engines, NULL, NULL},
    {"iodepth", FK_INT, JOB(iodepth), 1, 1, 4096, NULL, NULL, NULL, NULL},
    {"numjobs", FK_INT, JOB(numjobs), 1, 1, 256, NULL, NULL, NULL, NULL},
    {"runtimeSeconds", FK_INT, JOB(runtime_s), 60, 1, 86400, NULL, NULL, NULL, NULL},
    {"fsync", FK_INT, JOB(fsync), 0, 0, 1000000, NULL, NULL, NULL, NULL},
    {"fdatasync", FK_INT, JOB(fdatasync), 0, 0, 1000000, NULL, NULL, NULL, NULL},
    {"direct", FK_BOOL, JOB(direct), 1, 0, 0, NULL, NULL, NULL, NULL},
};

/* One of fio.jobs (path jp), an object. */
static void parse_fio_job(struct pctx *p, const cJSON *it, const char *jp, struct api_fio_job *j)
{
    j->name = str_field(p, it, "name", jp, NULL);
    if (j->name) {
        for (const char *c = j->name; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
                perr(p, "%s.name: use letters, digits, - and _ only", jp);
    } else {
        perr(p, "%s.name: required: a short name for the job, e.g. randrw", jp);
    }
    parse_fields(p, it, jp, job_rows, NFIELDS(job_rows), j);
    if ((j->fsync > 0 || j->fdatasync > 0) && j->rw && !strstr(j->rw, "write") &&
        strcmp(j->rw, "rw") != 0 && strcmp(j->rw, "randrw") != 0)
        perr(p,
             "%s: fsync/fdatasync only apply to jobs that write; set rw to write, "
             "randwrite, rw or randrw",
             jp);
}

static void parse_fio(struct pctx *p, const cJSON *fio, struct api_spec *s)
{
    const char *path = "spec.workload.fio";
    s->storage_class = str_field(p, fio, "storageClassName", path, NULL);
    if (s->storage_class && *s->storage_class && !dns_name(s->storage_class))
        perr(p, "%s.storageClassName: \"%s\" is not a valid StorageClass name", path,
             s->storage_class);
    s->volume_size = str_field(p, fio, "volumeSize", path, "10Gi");
    double volume = 0;
    if (!quantity_bytes(s->volume_size, &volume))
        perr(p, "%s.volumeSize: \"%s\" is not a quantity; write e.g. 10Gi", path, s->volume_size);
    s->keep_volume = bool_field(p, fio, "keepVolume", path, false);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(fio, "jobs");
    if (!jobs || !cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) == 0) {
        perr(p, "%s.jobs: required: a list of at least one fio job {name, rw, bs, ...}", path);
        return;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, jobs)
    {
        char jp[64];
        (void)snprintf(jp, sizeof(jp), "%s.jobs[%d]", path, i);
        if (i >= API_MAX_FIO_JOBS) {
            perr(p, "%s.jobs: at most %d jobs", path, API_MAX_FIO_JOBS);
            return;
        }
        if (!cJSON_IsObject(it)) {
            perr(p, "%s: must be an object", jp);
            return;
        }
        parse_fio_job(p, it, jp, &s->fio_jobs[i]);
        i++;
    }
    s->n_fio_jobs = i;
    if (!p->rc)
        fio_jobs_fit(p, s, volume);
}

static void parse_hpa(struct pctx *p, const cJSON *hpa, struct api_spec *s)
{
    const char *path = "spec.hpa";
    s->hpa = true;
    const cJSON *ref = obj_field(p, hpa, "scaleTargetRef", path);
    if (!ref) {
        perr(p, "spec.hpa.scaleTargetRef: required: {apiVersion: apps/v1, kind: StatefulSet, "
                "name: <replicas>}");
        return;
    }
    s->hpa_api_version = str_field(p, ref, "apiVersion", "spec.hpa.scaleTargetRef", "apps/v1");
    s->hpa_kind = str_field(p, ref, "kind", "spec.hpa.scaleTargetRef", "StatefulSet");
    s->hpa_name = str_field(p, ref, "name", "spec.hpa.scaleTargetRef", NULL);
    static const char *const kinds[] = {"StatefulSet", "Deployment", NULL};
    enum_check(p, s->hpa_kind, "spec.hpa.scaleTargetRef", "kind", kinds);
    if (s->hpa_api_version && strcmp(s->hpa_api_version, "apps/v1") != 0)
        perr(p, "spec.hpa.scaleTargetRef.apiVersion: only apps/v1 is supported");
    if (!s->hpa_name || !dns_name(s->hpa_name))
        perr(p, "spec.hpa.scaleTargetRef.name: required: the StatefulSet or Deployment to scale");
    s->hpa_min = (int)int_field(p, hpa, "minReplicas", path, 1, 1, 1000);
    s->hpa_max = (int)int_field(p, hpa, "maxReplicas", path, 0, 1, 1000);
    if (!has_field(hpa, "maxReplicas"))
        perr(p, "spec.hpa.maxReplicas: required: the most replicas the HPA may create");
    else if (!p->rc && s->hpa_max < s->hpa_min)
        perr(p,
             "spec.hpa.maxReplicas: must be >= minReplicas (%d); raise maxReplicas or lower "
             "minReplicas",
             s->hpa_min);
    s->hpa_cpu = (int)int_field(p, hpa, "targetCPUUtilizationPercentage", path, 80, 1, 1000);
    s->hpa_behavior = obj_field(p, hpa, "behavior", path);
    s->hpa_keep = bool_field(p, hpa, "keep", path, false);
}

/* spec.target (unless a fio-only spec leaves it out), spec.workload and spec.workers. */
static void spec_workload(struct pctx *p, const cJSON *spec, struct api_spec *s)
{
    const cJSON *wl = obj_field(p, spec, "workload", "spec");
    bool fio_only = wl && has_field(wl, "fio") && !has_field(wl, "pgbench");
    if (!fio_only || has_field(spec, "target"))
        parse_target(p, spec, s);

    const cJSON *pg = obj_field(p, wl, "pgbench", "spec.workload");
    const cJSON *fio = obj_field(p, wl, "fio", "spec.workload");
    if (!p->rc && (!wl || (pg != NULL) == (fio != NULL)))
        perr(p, "spec.workload: set exactly one of pgbench or fio");
    else if (pg) {
        s->workload = API_WL_PGBENCH;
        parse_pgbench(p, pg, s);
    } else if (fio) {
        s->workload = API_WL_FIO;
        parse_fio(p, fio, s);
    }

    s->workers = (int)int_field(p, spec, "workers", "spec", 1, 1, API_MAX_WORKERS);
    if (!p->rc && s->workload == API_WL_PGBENCH && s->clients < s->workers)
        perr(p,
             "spec.workload.pgbench.run.clients: %d clients cannot be split over %d workers "
             "(clients are the total across workers); set clients >= workers or lower "
             "spec.workers",
             s->clients, s->workers);
    if (!p->rc && s->workload == API_WL_PGBENCH && s->rate > 0 &&
        llround(s->rate * API_RATE_UNITS) < s->workers)
        perr(p,
             "spec.workload.pgbench.run.rate: %g tps cannot be split over %d workers (rate is "
             "the total across workers, at least %g tps per worker); raise rate or lower "
             "spec.workers",
             s->rate, s->workers, 1.0 / API_RATE_UNITS);
    if (!p->rc && s->workload == API_WL_FIO && s->workers != 1)
        perr(p, "spec.workers: a fio workload runs in one pod on its own volume; set workers "
                "to 1");
}

static const struct field diag_rows[] = {
    {"waitEvents", FK_BOOL, SPEC(wait_events), 1, 0, 0, NULL, NULL, NULL, NULL},
    {"serverSettings", FK_BOOL, SPEC(server_settings), 1, 0, 0, NULL, NULL, NULL, NULL},
    {"replicaLag", FK_BOOL, SPEC(replica_lag), 1, 0, 0, NULL, NULL, NULL, NULL},
    {"replicaCatchUpTimeoutSeconds", FK_INT, SPEC(replica_timeout_s), 300, 0, 86400, NULL, NULL,
     NULL, NULL},
};

/* The pods' image, pull policy and template, and the run's lifetime fields. */
static void spec_pods(struct pctx *p, const cJSON *spec, struct api_spec *s)
{
    s->image = str_field(p, spec, "image", "spec", NULL);
    if (s->image && (!*s->image || strpbrk(s->image, " \t\n")))
        perr(p, "spec.image: must be an image reference such as "
                "ghcr.io/pgbench-operator/runner:0.1.0");
    static const char *const pulls[] = {"Always", "IfNotPresent", "Never", NULL};
    s->pull_policy = str_field(p, spec, "imagePullPolicy", "spec", "IfNotPresent");
    enum_check(p, s->pull_policy, "spec", "imagePullPolicy", pulls);
    s->pod_template = obj_field(p, spec, "podTemplate", "spec");
    s->ttl_s = int_field(p, spec, "ttlSecondsAfterFinished", "spec", 3600, 0, 365L * 86400);
    s->timeout_s = int_field(p, spec, "timeoutSeconds", "spec", 0, 1, API_MAX_TIMEOUT_S);
    static const char *const policies[] = {"Keep", "Delete", NULL};
    const char *cp = str_field(p, spec, "cleanupPolicy", "spec", "Keep");
    enum_check(p, cp, "spec", "cleanupPolicy", policies);
    s->cleanup_delete = cp && strcmp(cp, "Delete") == 0;
}

/* spec.podTemplate: only the fields the manifests copy, and never root. */
static void pod_template_check(struct pctx *p, const cJSON *pt)
{
    static const char *const known[] = {"resources",
                                        "nodeSelector",
                                        "tolerations",
                                        "affinity",
                                        "securityContext",
                                        "serviceAccountName",
                                        "imagePullSecrets",
                                        "annotations",
                                        "labels",
                                        "priorityClassName",
                                        NULL};
    const cJSON *it;
    cJSON_ArrayForEach(it, pt)
    {
        if (!one_of(it->string, known)) {
            perr(p,
                 "spec.podTemplate.%s: unknown field; allowed: resources, nodeSelector, "
                 "tolerations, affinity, securityContext, serviceAccountName, "
                 "imagePullSecrets, annotations, labels, priorityClassName",
                 it->string);
            break;
        }
    }
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(pt, "securityContext");
    const cJSON *nonroot = sc ? cJSON_GetObjectItemCaseSensitive(sc, "runAsNonRoot") : NULL;
    const cJSON *uid = sc ? cJSON_GetObjectItemCaseSensitive(sc, "runAsUser") : NULL;
    if (cJSON_IsFalse(nonroot) || (uid && cJSON_IsNumber(uid) && uid->valuedouble == 0))
        perr(p, "spec.podTemplate.securityContext: runner pods must not run as root; remove "
                "runAsNonRoot: false / runAsUser: 0");
}

/* One of spec.placement.topologySpreadConstraints: what the API server would refuse on the Job,
 * refused here with the field's name (an API server without CEL, the plugin). */
static void spread_constraint_check(struct pctx *p, const cJSON *c, int i)
{
    char path[96];
    (void)snprintf(path, sizeof(path), "spec.placement.topologySpreadConstraints[%d]", i);
    if (!cJSON_IsObject(c)) {
        perr(p, "%s: must be an object with maxSkew, topologyKey and whenUnsatisfiable", path);
        return;
    }
    static const char *const known[] = {"maxSkew",       "topologyKey", "whenUnsatisfiable",
                                        "labelSelector", "minDomains",  NULL};
    const cJSON *it;
    cJSON_ArrayForEach(it, c) if (!one_of(it->string, known))
    {
        perr(p,
             "%s.%s: unknown field; allowed: maxSkew, topologyKey, whenUnsatisfiable, "
             "labelSelector, minDomains",
             path, it->string);
        return;
    }
    static const char *const when[] = {"DoNotSchedule", "ScheduleAnyway", NULL};
    const char *key = str_field(p, c, "topologyKey", path, NULL);
    const char *wu = str_field(p, c, "whenUnsatisfiable", path, NULL);
    if (!has_field(c, "maxSkew") || !key || !*key || !wu)
        perr(p,
             "%s: maxSkew, topologyKey and whenUnsatisfiable are required, e.g. {maxSkew: 1, "
             "topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}",
             path);
    (void)int_field(p, c, "maxSkew", path, 1, 1, INT32_MAX);
    enum_check(p, wu, path, "whenUnsatisfiable", when);
    (void)obj_field(p, c, "labelSelector", path);
    long md = int_field(p, c, "minDomains", path, 0, 1, INT32_MAX);
    if (md > 0 && wu && strcmp(wu, "DoNotSchedule") != 0)
        perr(p, "%s.minDomains: only with whenUnsatisfiable DoNotSchedule; remove minDomains",
             path);
}

/* spec.placement: mode (spread, the default; pack; custom) and, with custom, the user's
 * topologySpreadConstraints, at most one per topologyKey and whenUnsatisfiable. */
static void parse_placement(struct pctx *p, const cJSON *spec, struct api_spec *s)
{
    const cJSON *pl = obj_field(p, spec, "placement", "spec");
    static const char *const modes[] = {"spread", "pack", "custom", NULL};
    const char *mode = str_field(p, pl, "mode", "spec.placement", "spread");
    enum_check(p, mode, "spec.placement", "mode", modes);
    s->placement = mode && strcmp(mode, "pack") == 0     ? API_PLACE_PACK
                   : mode && strcmp(mode, "custom") == 0 ? API_PLACE_CUSTOM
                                                         : API_PLACE_SPREAD;
    const cJSON *tsc =
        pl ? cJSON_GetObjectItemCaseSensitive(pl, "topologySpreadConstraints") : NULL;
    if (!tsc || cJSON_IsNull(tsc))
        return;
    if (s->placement != API_PLACE_CUSTOM) {
        perr(p, "spec.placement.topologySpreadConstraints: only with mode custom (spread and "
                "pack bring their own); set spec.placement.mode: custom");
        return;
    }
    if (!cJSON_IsArray(tsc) || cJSON_GetArraySize(tsc) > API_MAX_SPREAD_CONSTRAINTS) {
        perr(p, "spec.placement.topologySpreadConstraints: must be a list of at most %d",
             API_MAX_SPREAD_CONSTRAINTS);
        return;
    }
    for (int i = 0; i < cJSON_GetArraySize(tsc) && !p->rc; i++) {
        const cJSON *c = cJSON_GetArrayItem(tsc, i);
        spread_constraint_check(p, c, i);
        for (int j = 0; j < i && !p->rc; j++) {
            const cJSON *o = cJSON_GetArrayItem(tsc, j);
            const char *k = util_jstr(c, "topologyKey"), *w = util_jstr(c, "whenUnsatisfiable");
            if (strcmp(k, util_jstr(o, "topologyKey")) == 0 &&
                strcmp(w, util_jstr(o, "whenUnsatisfiable")) == 0)
                perr(p,
                     "spec.placement.topologySpreadConstraints[%d]: the same topologyKey %s and "
                     "whenUnsatisfiable %s as [%d]; keep one",
                     i, k, w, j);
        }
    }
    s->spread_constraints = tsc;
}

int api_spec_parse(const cJSON *spec_in, struct api_spec *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    struct pctx p = {err, errlen, 0};
    if (errlen)
        err[0] = '\0';
    if (!spec_in || !cJSON_IsObject(spec_in)) {
        perr(&p, "spec: required: a BenchmarkRun needs spec.target and spec.workload");
        return p.rc;
    }
    s->json = util_must(cJSON_Duplicate(spec_in, 1));
    const cJSON *spec = s->json;

    spec_workload(&p, spec, s);
    const cJSON *hpa = obj_field(&p, spec, "hpa", "spec");
    if (hpa && s->workload == API_WL_FIO)
        perr(&p, "spec.hpa: only meaningful with a pgbench workload; remove spec.hpa");
    else if (hpa)
        parse_hpa(&p, hpa, s);
    const cJSON *diag = obj_field(&p, spec, "diagnostics", "spec");
    parse_fields(&p, diag, "spec.diagnostics", diag_rows, NFIELDS(diag_rows), s);
    spec_pods(&p, spec, s);
    parse_placement(&p, spec, s);
    if (s->pod_template)
        pod_template_check(&p, s->pod_template);

    if (p.rc) {
        api_spec_free(s);
        return p.rc;
    }
    return 0;
}

void api_spec_free(struct api_spec *s)
{
    if (!s)
        return;
    cJSON_Delete(s->json);
    memset(s, 0, sizeof(*s));
}

long api_worker_share(long total, int workers, int index)
{
    if (workers <= 0 || index < 0 || index >= workers)
        return 0;
    return total / workers + (index < total % workers ? 1 : 0);
}

int api_worker_clients(int clients, int workers, int index)
{
    return (int)api_worker_share(clients, workers, index);
}

double api_worker_rate(double rate, int workers, int index)
{
    return (double)api_worker_share(llround(rate * API_RATE_UNITS), workers, index) /
           API_RATE_UNITS;
}

int api_worker_threads(int threads, int clients, int workers, int index)
{
    int c = api_worker_clients(clients, workers, index);
    return threads < c ? threads : c;
}

void api_spec_target_string(const struct api_spec *s, char *out, size_t len)
{
    (void)snprintf(out, len, "%s:%d/%s", s->host, s->port, s->database);
}

void api_spec_user_string(const struct api_spec *s, char *out, size_t len)
{
    if (s->user_key)
        (void)snprintf(out, len, "from Secret %s", s->password_secret);
    else
        (void)snprintf(out, len, "%s", s->user);
}

long api_spec_expected_seconds(const struct api_spec *s)
{
    if (s->workload == API_WL_FIO) {
        long t = 0;
        for (int i = 0; i < s->n_fio_jobs; i++)
            t += s->fio_jobs[i].runtime_s;
        return t;
    }
    return s->duration_s;
}
