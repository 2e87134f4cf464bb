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

void ctrl_result_drop(struct ctrl_observed *o, int i)
{
    cJSON_Delete(o->results[i]);
    free(o->kept[i]);
    o->results[i] = NULL;
    o->kept[i] = NULL;
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

void ctrl_result_keep(struct ctrl_observed *o, int i, cJSON *full)
{
    ctrl_result_drop(o, i);
    if (!full)
        return;
    if (has_per_interval(full)) {
        o->kept[i] = ctrl_result_pack(full);
        slim_down(full);
    }
    o->results[i] = full;
}

void ctrl_result_keep_packed(struct ctrl_observed *o, int i, struct ctrl_kept_result *packed)
{
    ctrl_result_drop(o, i);
    if (!packed)
        return;
    o->results[i] = unpacked(packed);
    slim_down(o->results[i]);
    o->kept[i] = packed;
}

struct ctrl_kept_result *ctrl_result_take(struct ctrl_observed *o, int i)
{
    struct ctrl_kept_result *k = o->kept[i];
    if (!k && o->results[i])
        k = ctrl_result_pack(o->results[i]);
    o->kept[i] = NULL;
    ctrl_result_drop(o, i);
    return k;
}

cJSON *ctrl_result_whole(const struct ctrl_observed *o, int i)
{
    if (!o->kept[i])
        return o->results[i] ? util_must(cJSON_Duplicate(o->results[i], 1)) : NULL;
    return unpacked(o->kept[i]);
}

void ctrl_result_sizes(const struct ctrl_observed *o, int n, size_t *kept, size_t *text)
{
    *kept = *text = 0;
    for (int i = 0; i < n; i++)
        if (o->kept[i]) {
            *kept += o->kept[i]->zlen;
            *text += o->kept[i]->len;
        }
}

cJSON *ctrl_collect_aggregate(const struct ctrl_observed *o, int n, char *err, size_t errlen)
{
    struct bench_agg *a = bench_agg_new();
    for (int i = 0; i < n; i++) {
        cJSON *r = o->kept[i] ? ctrl_result_whole(o, i) : NULL;
        bench_agg_add(a, r ? r : o->results[i]);
        cJSON_Delete(r);
    }
    cJSON *agg = bench_agg_finish(a, err, errlen);
    bench_agg_free(a);
    return agg;
}

static cJSON *whole_of(int i, void *ctx)
{
    return ctrl_result_whole(ctx, i);
}

cJSON *ctrl_collect_configmap(const struct ctrl_observed *o, const cJSON *agg, int n, size_t limit,
                              char *err, size_t errlen)
{
    struct api_result_workers src = {.n = n, .get = whole_of, .ctx = (void *)o};
    return api_result_configmap_from(o->br, agg, &src, limit, err, errlen);
}
