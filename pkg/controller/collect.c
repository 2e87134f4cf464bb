/* The workers' results while a run is collected, held small (collect.h). */
#include "pkg/controller/collect.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pkg/api/resultcm.h"
#include "pkg/bench/aggregate.h"
#include "pkg/bench/fields.h"
#include "pkg/util/mem.h"

/* A whole result: its unformatted JSON (len bytes), deflated (zlen bytes). */
struct ctrl_kept_result {
    size_t len, zlen;
    unsigned char z[];
};

/* The members that grow with the run's length; the reconciler reads them only through the
 * aggregate and the result ConfigMap. */
static const enum bench_field_id PER_INTERVAL[] = {BK_HISTOGRAM, BK_LATENCY_SERIES, BK_TIMELINE};

struct ctrl_kept_result *ctrl_result_pack(const cJSON *full)
{
    char *text = util_must(cJSON_PrintUnformatted(full));
    size_t len = strlen(text);
    uLongf zlen = compressBound((uLong)len);
    struct ctrl_kept_result *k = util_xmalloc(sizeof(*k) + zlen);
    /* only out of memory fails here, which the allocator's policy makes an abort */
    if (compress2(k->z, &zlen, (const Bytef *)text, (uLong)len, Z_BEST_SPEED) != Z_OK)
        util_oom(zlen);
    free(text);
    k->len = len;
    k->zlen = zlen;
    return util_xrealloc(k, sizeof(*k) + zlen);
}

void ctrl_result_drop(cJSON **slim, struct ctrl_kept_result **kept)
{
    cJSON_Delete(*slim);
    free(*kept);
    *slim = NULL;
    *kept = NULL;
}

static cJSON *unpacked(const struct ctrl_kept_result *k)
{
    char *text = util_xmalloc(k->len + 1);
    uLongf len = (uLongf)k->len;
    /* our own deflated bytes: only a bug gets here */
    if (uncompress((Bytef *)text, &len, k->z, (uLong)k->zlen) != Z_OK || len != k->len)
        util_oom(k->len);
    text[len] = '\0';
    cJSON *r = util_must(cJSON_ParseWithLength(text, len));
    free(text);
    return r;
}

static bool has_per_interval(const cJSON *full)
{
    for (size_t k = 0; k < sizeof(PER_INTERVAL) / sizeof(PER_INTERVAL[0]); k++)
        if (cJSON_GetObjectItemCaseSensitive(full, bench_key(PER_INTERVAL[k])))
            return true;
    return false;
}

static void slim_down(cJSON *full)
{
    for (size_t k = 0; k < sizeof(PER_INTERVAL) / sizeof(PER_INTERVAL[0]); k++)
        cJSON_DeleteItemFromObjectCaseSensitive(full, bench_key(PER_INTERVAL[k]));
}

void ctrl_result_keep(cJSON **slim, struct ctrl_kept_result **kept, cJSON *full)
{
    ctrl_result_drop(slim, kept);
    if (!full)
        return;
    if (has_per_interval(full)) {
        *kept = ctrl_result_pack(full);
        slim_down(full);
    }
    *slim = full;
}

void ctrl_result_keep_packed(cJSON **slim, struct ctrl_kept_result **kept,
                             struct ctrl_kept_result *packed)
{
    ctrl_result_drop(slim, kept);
    if (!packed)
        return;
    *slim = unpacked(packed);
    slim_down(*slim);
    *kept = packed;
}

struct ctrl_kept_result *ctrl_result_take(cJSON **slim, struct ctrl_kept_result **kept)
{
    struct ctrl_kept_result *k = *kept;
    if (!k && *slim)
        k = ctrl_result_pack(*slim);
    *kept = NULL;
    ctrl_result_drop(slim, kept);
    return k;
}

cJSON *ctrl_result_whole(const cJSON *slim, const struct ctrl_kept_result *kept)
{
    if (!kept)
        return slim ? util_must(cJSON_Duplicate(slim, 1)) : NULL;
    return unpacked(kept);
}

void ctrl_result_sizes(struct ctrl_kept_result *const *kept, int n, size_t *packed, size_t *text)
{
    *packed = *text = 0;
    for (int i = 0; i < n; i++)
        if (kept[i]) {
            *packed += kept[i]->zlen;
            *text += kept[i]->len;
        }
}

cJSON *ctrl_collect_aggregate(cJSON *const *results, struct ctrl_kept_result *const *kept, int n,
                              char *err, size_t errlen)
{
    struct bench_agg *a = bench_agg_new();
    for (int i = 0; i < n; i++) {
        cJSON *r = kept[i] ? unpacked(kept[i]) : NULL;
        bench_agg_add(a, r ? r : results[i]);
        cJSON_Delete(r);
    }
    cJSON *agg = bench_agg_finish(a, err, errlen);
    bench_agg_free(a);
    return agg;
}

/* The source of the ConfigMap's worker results. */
struct slots {
    cJSON *const *results;
    struct ctrl_kept_result *const *kept;
};

static cJSON *whole_of(int i, void *ctx)
{
    const struct slots *s = ctx;
    return ctrl_result_whole(s->results[i], s->kept[i]);
}

cJSON *ctrl_collect_configmap(const cJSON *br, const cJSON *agg, cJSON *const *results,
                              struct ctrl_kept_result *const *kept, int n, size_t limit, char *err,
                              size_t errlen)
{
    struct slots s = {.results = results, .kept = kept};
    struct api_result_workers src = {.n = n, .get = whole_of, .ctx = &s};
    return api_result_configmap_from(br, agg, &src, limit, err, errlen);
}
