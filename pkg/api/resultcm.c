/* The result ConfigMap: the whole result of a run, brought under the size limit (resultcm.h). */
#include "pkg/api/resultcm.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/fields.h"
#include "pkg/bench/histogram.h"
#include "pkg/api/manifest.h"

#define KEY(id) bench_key(BK_##id)

/* What was reduced so far (result.json's "downsampled"). */
struct reduction {
    int points;          /* timelines kept to at most this many points; 0 = untouched */
    int timeline_from;   /* the aggregate's points before */
    int worker_from;     /* the longest worker timeline's points before */
    int histograms;      /* worker histograms removed */
    bool timelines_gone; /* worker timelines removed */
    int results_removed; /* worker results removed */
    int steps;           /* steps taken */
};

/* The merged histogram in HdrHistogram's encoding; NULL when agg has none (or it is invalid). */
static char *hdr_of(const cJSON *agg)
{
    const cJSON *hj = bench_get(agg, BK_HISTOGRAM);
    struct bench_hist *h = hj ? bench_hist_new() : NULL;
    char *b64 = NULL;
    if (h && bench_hist_from_json(h, hj) == 0)
        b64 = bench_hist_to_hdr_base64(h);
    bench_hist_free(h);
    return b64;
}

/* A worker result for the document without copying it: a new object whose members are references
 * to result's (cJSON_IsReference: deleting one frees neither its children nor its string value).
 * The ladder only removes or replaces whole members of a worker result, so result itself, which
 * the caller still holds, is never changed; a deep copy of 64 results doubled the operator's
 * peak memory (e2e 110). */
static cJSON *worker_view(const cJSON *result)
{
    if (!cJSON_IsObject(result))
        return result ? cJSON_Duplicate(result, 1) : cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    const cJSON *m;
    cJSON_ArrayForEach(m, result)
    {
        /* cJSON's reference API takes a non-const item; it is only pointed to, never changed */
        (void)cJSON_AddItemReferenceToObject(o, m->string, (cJSON *)m);
    }
    return o;
}

/* The aggregate plus workerResults and histogramHdr. */
static cJSON *document(const cJSON *agg, const cJSON *const *results, int n)
{
    cJSON *doc = util_must(cJSON_Duplicate(agg, 1));
    cJSON *wr = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(wr, worker_view(results[i]));
    util_jset(doc, KEY(WORKER_RESULTS), wr);
    char *hdr = hdr_of(agg);
    if (hdr)
        util_jset_str(doc, KEY(HISTOGRAM_HDR), hdr);
    free(hdr);
    return doc;
}

static int timeline_len(const cJSON *result)
{
    return cJSON_GetArraySize(bench_get(result, BK_TIMELINE));
}

/* Keeps every step-th point of result's timeline, as status does, so at most max remain. */
static void thin_timeline(cJSON *result, int max)
{
    cJSON *tl = cJSON_GetObjectItemCaseSensitive(result, KEY(TIMELINE));
    int n = cJSON_GetArraySize(tl), step = bench_downsample_step(n, max);
    if (!cJSON_IsArray(tl) || step <= 1)
        return;
    cJSON *kept = cJSON_CreateArray();
    for (int i = 0; i < n; i += step)
        cJSON_AddItemReferenceToArray(kept, cJSON_GetArrayItem(tl, i));
    cJSON *out = cJSON_Duplicate(kept, 1);
    cJSON_Delete(kept);
    cJSON_ReplaceItemInObjectCaseSensitive(result, KEY(TIMELINE), out);
}

static cJSON *from_to(int from, int to)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, "from", from);
    util_jset_num(o, "to", to);
    return o;
}

static int longest_worker_timeline(const cJSON *doc)
{
    int m = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, KEY(WORKER_RESULTS)))
    {
        int k = timeline_len(w);
        m = k > m ? k : m;
    }
    return m;
}

/* Writes what r says into doc's "downsampled". */
static void record(cJSON *doc, const struct reduction *r, size_t limit)
{
    cJSON *d = cJSON_CreateObject();
    util_jset_num(d, bench_key(BK_DOWNSAMPLED_LIMIT_BYTES), (double)limit);
    if (r->points && r->timeline_from > timeline_len(doc))
        util_jset(d, bench_key(BK_DOWNSAMPLED_TIMELINE_POINTS),
                  from_to(r->timeline_from, timeline_len(doc)));
    int wl = longest_worker_timeline(doc);
    if (r->timelines_gone || (r->points && r->worker_from > wl))
        util_jset(d, bench_key(BK_DOWNSAMPLED_WORKER_TIMELINES),
                  from_to(r->worker_from, r->timelines_gone ? 0 : wl));
    if (r->histograms)
        util_jset_num(d, bench_key(BK_DOWNSAMPLED_WORKER_HISTOGRAMS), r->histograms);
    if (r->results_removed)
        util_jset_num(d, bench_key(BK_DOWNSAMPLED_WORKER_RESULTS), r->results_removed);
    util_jset(doc, KEY(DOWNSAMPLED), d);
}

/* Removes member key from every worker result; returns how many had it. */
static int strip_workers(cJSON *doc, const char *key)
{
    int k = 0;
    cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, KEY(WORKER_RESULTS)))
    {
        if (cJSON_IsObject(w) && cJSON_GetObjectItemCaseSensitive(w, key)) {
            cJSON_DeleteItemFromObjectCaseSensitive(w, key);
            k++;
        }
    }
    return k;
}

/* One more step of the ladder (resultcm.h); false when nothing is left to reduce. */
static bool reduce(cJSON *doc, struct reduction *r)
{
    int longest = timeline_len(doc);
    int wl = r->timelines_gone ? 0 : longest_worker_timeline(doc);
    longest = wl > longest ? wl : longest;
    if (r->steps++ == 0) {
        r->timeline_from = timeline_len(doc);
        r->worker_from = wl;
    }
    if (longest > API_RESULT_MIN_POINTS) {
        int to = longest / 2 > API_RESULT_MIN_POINTS ? longest / 2 : API_RESULT_MIN_POINTS;
        r->points = to;
        thin_timeline(doc, to);
        cJSON *w;
        cJSON_ArrayForEach(
            w, cJSON_GetObjectItemCaseSensitive(doc, KEY(WORKER_RESULTS))) if (cJSON_IsObject(w))
            thin_timeline(w, to);
        return true;
    }
    cJSON *wr = cJSON_GetObjectItemCaseSensitive(doc, KEY(WORKER_RESULTS));
    if (!r->histograms) { /* the per-interval histograms of latencySeries go with them */
        int h = strip_workers(doc, KEY(HISTOGRAM)), ls = strip_workers(doc, KEY(LATENCY_SERIES));
        if ((r->histograms = h > ls ? h : ls) > 0)
            return true;
    }
    if (!r->timelines_gone) {
        r->timelines_gone = true;
        if (strip_workers(doc, KEY(TIMELINE)) > 0)
            return true;
    }
    if (!r->results_removed && cJSON_GetArraySize(wr) > 0) {
        r->results_removed = cJSON_GetArraySize(wr);
        cJSON_ReplaceItemInObjectCaseSensitive(doc, KEY(WORKER_RESULTS), cJSON_CreateArray());
        return true;
    }
    return false;
}

/* The ConfigMap of doc when its JSON is shorter than limit, else NULL; *size says how long. */
static cJSON *fitting(const cJSON *br, const cJSON *doc, size_t limit, size_t *size)
{
    char *text = util_must(cJSON_PrintUnformatted(doc));
    cJSON *cm = api_manifest_result_configmap(br, API_RESULT_KEY, text);
    free(text);
    char *all = util_must(cJSON_PrintUnformatted(cm));
    *size = strlen(all);
    free(all);
    if (*size < limit)
        return cm;
    cJSON_Delete(cm);
    return NULL;
}

cJSON *api_result_configmap(const cJSON *br, const cJSON *agg, const cJSON *const *results, int n,
                            size_t limit, char *err, size_t errlen)
{
    if (!cJSON_IsObject(agg)) {
        (void)snprintf(err, errlen, "no aggregate result");
        return NULL;
    }
    cJSON *doc = document(agg, results, n);
    struct reduction r = {0};
    size_t size = 0;
    cJSON *cm;
    while (!(cm = fitting(br, doc, limit, &size))) {
        if (!reduce(doc, &r)) {
            (void)snprintf(err, errlen,
                           "the result takes %zu bytes even without the workers' results, more "
                           "than the %zu a ConfigMap may hold here",
                           size, limit);
            break;
        }
        record(doc, &r, limit);
    }
    cJSON_Delete(doc);
    return cm;
}
