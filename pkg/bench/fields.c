/* The result contract table (see fields.h) and the path helpers that read it. */
#include "pkg/bench/fields.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct bench_field bench_fields[] = {
#define ROW(id, path, type, unit, merge, compact, status, presence, read, max_items, downsample,   \
            desc)                                                                                  \
    [BK_##id] = {path,          BF_##type, unit,      BM_##merge, compact, status,                 \
                 BP_##presence, read,      max_items, downsample, desc,    -1},
#include "pkg/bench/fields.def"
#undef ROW
};

const size_t bench_nfields = BK__COUNT;

const struct bench_field bench_sweep_fields[] = {
#define SROW(id, status, type, unit, presence, read, max_items, from, desc)                        \
    [BSW_##id] = {NULL,          BF_##type, unit,      BM_NONE, false, status,                     \
                  BP_##presence, read,      max_items, false,   desc,  from},
#include "pkg/bench/sweep_fields.def"
#undef SROW
};

const size_t bench_sweep_nfields = BSW__COUNT;

const struct bench_column bench_columns[] = {
    {"Phase", "string", ".status.phase", NULL, 0},
    {"Target", "string", ".status.target", NULL, 0},
    {"Result", "string", ".status.result",
     "The result in one line: tps and p99 for pgbench (the live tps while Running), IOPS and p99 "
     "per fio job",
     0},
    {"Age", "date", ".metadata.creationTimestamp", NULL, 0},
    {"Workers", "integer", ".spec.workers", NULL, 1},
    {"Clients", "integer", ".status.clients", "Clients over all workers (pgbench)", 1},
    {"Failed", "integer", ".status.failed", "Failed transactions and aborted clients", 1},
    {"Verdict", "string", ".status.diagnostics.verdictClass",
     "The resource that limits the run (status.diagnostics.verdict says why)", 1},
    {"Message", "string", ".status.message", NULL, 1},
};

const size_t bench_ncolumns = sizeof(bench_columns) / sizeof(bench_columns[0]);

const struct bench_column bench_sweep_columns[] = {
    {"Phase", "string", ".status.phase", NULL, 0},
    {"Step", "string", ".status.stepText",
     "The step running (or the last one run) of all steps, as i/n", 0},
    {"Peak TPS", "number", ".status.analysis.peakTps", "The highest mean tps of a step", 0},
    {"At clients", "number", ".status.analysis.peakAt",
     "The varied value (clients, rate or workers) of the step with the peak tps", 0},
    {"Knee", "number", ".status.analysis.kneeAt",
     "The varied value where p99 latency first grows more than twice as fast as tps", 0},
    {"Age", "date", ".metadata.creationTimestamp", NULL, 0},
    {"Verdict", "string", ".status.analysis.verdict",
     "Where the target stops scaling and why, in one sentence", 1},
};

const size_t bench_sweep_ncolumns = sizeof(bench_sweep_columns) / sizeof(bench_sweep_columns[0]);

const struct bench_field *bench_field_find(const char *path, bool by_status)
{
    for (size_t i = 0; path && i < bench_nfields; i++) {
        const char *p = by_status ? bench_fields[i].status : bench_fields[i].path;
        if (p && strcmp(p, path) == 0)
            return &bench_fields[i];
    }
    return NULL;
}

const char *bench_field_under(const char *path, const char *list)
{
    size_t n = strlen(list);
    if (strncmp(path, list, n) != 0 || strncmp(path + n, "[].", 3) != 0)
        return NULL;
    return path + n + 3;
}

const char *bench_field_key(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : path;
}

int bench_downsample_step(int n, int max)
{
    return max >= 1 && n > max ? (n + max - 1) / max : 1;
}

const struct bench_series bench_timeline_series[] = {
    {BK_STATUS_TIMELINE_ELAPSED_SECONDS, BK_TIMELINE_T, 1},
    {BK_STATUS_TIMELINE_TPS, BK_TIMELINE_TPS, 1},
    {BK_STATUS_TIMELINE_LATENCY_MS, BK_TIMELINE_LATENCY_MS, 2},
};
const size_t bench_ntimeline_series =
    sizeof(bench_timeline_series) / sizeof(bench_timeline_series[0]);

int bench_series_parse(const char *s, double *out, int max)
{
    int n = 0;
    while (s && n < max) {
        s += strspn(s, " ");
        if (!*s)
            break;
        char *end;
        double v = strtod(s, &end);
        if (end == s) { /* "-" or anything else that is not a number: no value here */
            v = NAN;
            end = (char *)s + strcspn(s, " ");
        }
        out[n++] = v;
        s = end;
    }
    return n;
}

cJSON *bench_series_timeline(const cJSON *status)
{
    const cJSON *first = bench_status_get(status, bench_timeline_series[0].status);
    if (!cJSON_IsString(first))
        return NULL;
    cJSON *tl = cJSON_CreateArray();
    for (size_t k = 0; k < bench_ntimeline_series; k++) {
        const cJSON *str = bench_status_get(status, bench_timeline_series[k].status);
        double v[256];
        int n = bench_series_parse(cJSON_IsString(str) ? str->valuestring : NULL, v, 256);
        for (int i = 0; i < n; i++) {
            while (cJSON_GetArraySize(tl) <= i)
                cJSON_AddItemToArray(tl, cJSON_CreateObject());
            if (isfinite(v[i]))
                (void)bench_put(cJSON_GetArrayItem(tl, i), bench_timeline_series[k].result,
                                cJSON_CreateNumber(v[i]));
        }
    }
    return tl;
}

/* path after its innermost "[]." */
static const char *relative(const char *path)
{
    const char *p = path, *b;
    while (p && (b = strstr(p, "[].")) != NULL)
        p = b + 3;
    return p;
}

const char *bench_key(enum bench_field_id id)
{
    const struct bench_field *f = &bench_fields[id];
    return bench_field_key(f->path ? f->path : f->status);
}

const char *bench_rel(enum bench_field_id id)
{
    return relative(bench_fields[id].path);
}

static const cJSON *not_null(const cJSON *v)
{
    return v && !cJSON_IsNull(v) ? v : NULL;
}

const cJSON *bench_get(const cJSON *o, enum bench_field_id id)
{
    return bench_fields[id].path ? not_null(bench_json_at(o, bench_rel(id))) : NULL;
}

double bench_num(const cJSON *o, enum bench_field_id id)
{
    const cJSON *v = bench_get(o, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int bench_put(cJSON *o, enum bench_field_id id, cJSON *v)
{
    if (!bench_fields[id].path) {
        cJSON_Delete(v);
        return -EINVAL;
    }
    return bench_json_put(o, bench_rel(id), v);
}

int bench_put_key(cJSON *o, enum bench_field_id id, cJSON *v)
{
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(v);
        return -EINVAL;
    }
    util_jset(o, bench_key(id), v);
    return 0;
}

const cJSON *bench_status_get(const cJSON *status, enum bench_field_id id)
{
    const char *p = relative(bench_fields[id].status);
    return p ? not_null(bench_json_at(status, p)) : NULL;
}

const char *bench_status_str(const cJSON *status, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(status, id);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double bench_status_num(const cJSON *status, enum bench_field_id id, double def)
{
    const cJSON *v = bench_status_get(status, id);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

int bench_status_put(cJSON *status, enum bench_field_id id, cJSON *v)
{
    const char *p = relative(bench_fields[id].status);
    if (!p) {
        cJSON_Delete(v);
        return -EINVAL;
    }
    return bench_json_put(status, p, v);
}

void bench_status_clear(cJSON *status, enum bench_field_id id)
{
    if (bench_status_get(status, id))
        (void)bench_status_put(status, id, cJSON_CreateNull());
}

void bench_status_set_num(cJSON *status, enum bench_field_id id, double v)
{
    (void)bench_status_put(status, id, cJSON_CreateNumber(v));
}

void bench_status_set_str(cJSON *status, enum bench_field_id id, const char *s)
{
    if (s)
        (void)bench_status_put(status, id, cJSON_CreateString(s));
}

const char *bench_status_key(enum bench_field_id id)
{
    return bench_fields[id].status ? bench_field_key(bench_fields[id].status) : NULL;
}

const char *bench_sweep_rel(enum bench_sweep_field_id id)
{
    return relative(bench_sweep_fields[id].status);
}

const char *bench_sweep_key(enum bench_sweep_field_id id)
{
    return bench_field_key(bench_sweep_fields[id].status);
}

const cJSON *bench_sweep_get(const cJSON *o, enum bench_sweep_field_id id)
{
    return not_null(bench_json_at(o, bench_sweep_rel(id)));
}

double bench_sweep_num(const cJSON *o, enum bench_sweep_field_id id, double def)
{
    const cJSON *v = bench_sweep_get(o, id);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

const char *bench_sweep_str(const cJSON *o, enum bench_sweep_field_id id)
{
    const cJSON *v = bench_sweep_get(o, id);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int bench_sweep_put(cJSON *o, enum bench_sweep_field_id id, cJSON *v)
{
    const char *rel = bench_sweep_rel(id);
    if (!rel) {
        cJSON_Delete(v);
        return -EINVAL;
    }
    return bench_json_put(o, rel, v);
}

void bench_sweep_set_num(cJSON *o, enum bench_sweep_field_id id, double v)
{
    (void)bench_sweep_put(o, id, cJSON_CreateNumber(v));
}

void bench_sweep_set_str(cJSON *o, enum bench_sweep_field_id id, const char *s)
{
    if (s)
        (void)bench_sweep_put(o, id, cJSON_CreateString(s));
}

/* Copies the segment of path starting at *p into seg; advances *p past it and its dot. */
static bool next_segment(const char **p, char *seg, size_t len)
{
    const char *s = *p;
    if (!*s)
        return false;
    size_t n = strcspn(s, ".");
    if (n == 0 || n >= len)
        return false;
    memcpy(seg, s, n);
    seg[n] = '\0';
    *p = s[n] ? s + n + 1 : s + n;
    return true;
}

const cJSON *bench_json_at(const cJSON *o, const char *path)
{
    return path && *path ? util_jget(o, path) : NULL;
}

int bench_json_put(cJSON *o, const char *path, cJSON *v)
{
    char seg[128];
    const char *p = path;
    util_must(v);
    while (next_segment(&p, seg, sizeof(seg))) {
        if (!cJSON_IsObject(o))
            break;
        if (!*p) {
            util_jset(o, seg, v);
            return 0;
        }
        cJSON *next = cJSON_GetObjectItemCaseSensitive(o, seg);
        o = next ? next : util_must(cJSON_AddObjectToObject(o, seg));
    }
    cJSON_Delete(v);
    return -EINVAL;
}
