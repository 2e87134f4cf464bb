/* The result ConfigMap: the whole result of a run, brought under the size limit (resultcm.h). */
#include "pkg/api/resultcm.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"
#include "pkg/util/buf.h"

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

/* What the ladder does to every worker result, in this order. */
#define LADDER_MAX_THIN 32
struct ladder {
    int thin[LADDER_MAX_THIN]; /* the timeline thinned to each of these in turn */
    int nthin;
    bool no_histograms; /* histogram and latencySeries removed */
    bool no_timelines;  /* timeline removed */
    bool none;          /* the worker results removed */
};

/* What the workers' results hold once the ladder is applied. */
struct workers_seen {
    int longest;    /* the longest timeline */
    int histograms; /* results with a histogram */
    int series;     /* results with a latencySeries */
    int timelines;  /* results with a timeline */
    bool over;      /* their text alone went over the limit (it is cut short) */
};

/* Removes member key from w; returns 1 when it had it. */
static int strip(cJSON *w, const char *key)
{
    if (!cJSON_IsObject(w) || !cJSON_GetObjectItemCaseSensitive(w, key))
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(w, key);
    return 1;
}

/* "[w0,w1,...]": every worker's result, as the ladder leaves it, read one at a time from the
 * source, so only one is parsed at a time; text beyond limit is not kept (seen->over). */
static char *render_workers(const struct api_result_workers *src, const struct ladder *l,
                            size_t limit, struct workers_seen *seen)
{
    struct buf b = BUF_INIT(limit);
    memset(seen, 0, sizeof(*seen));
    (void)buf_puts(&b, "[");
    for (int i = 0; i < src->n && !l->none; i++) {
        cJSON *w = src->get(i, src->ctx);
        if (!w)
            w = cJSON_CreateNull();
        for (int k = 0; k < l->nthin && cJSON_IsObject(w); k++)
            thin_timeline(w, l->thin[k]);
        if (l->no_histograms) {
            (void)strip(w, KEY(HISTOGRAM));
            (void)strip(w, KEY(LATENCY_SERIES));
        }
        if (l->no_timelines)
            (void)strip(w, KEY(TIMELINE));
        int tl = timeline_len(w);
        seen->longest = tl > seen->longest ? tl : seen->longest;
        seen->histograms +=
            cJSON_IsObject(w) && cJSON_GetObjectItemCaseSensitive(w, KEY(HISTOGRAM));
        seen->series +=
            cJSON_IsObject(w) && cJSON_GetObjectItemCaseSensitive(w, KEY(LATENCY_SERIES));
        seen->timelines += cJSON_IsObject(w) && cJSON_GetObjectItemCaseSensitive(w, KEY(TIMELINE));
        if (!b.err) {
            char *text = util_must(cJSON_PrintUnformatted(w));
            (void)buf_puts(&b, i ? "," : "");
            (void)buf_puts(&b, text);
            free(text);
        }
        cJSON_Delete(w);
    }
    (void)buf_puts(&b, "]");
    seen->over = b.err != 0;
    return buf_steal(&b);
}

/* A cJSON raw item that takes text (printed as it is). */
static cJSON *raw_taking(char *text)
{
    cJSON *raw = util_must(cJSON_CreateRaw(""));
    cJSON_free(raw->valuestring);
    raw->valuestring = text;
    return raw;
}

/* The aggregate plus workerResults (the raw text of workers, as rendered) and histogramHdr. */
static cJSON *document(const cJSON *agg)
{
    cJSON *doc = util_must(cJSON_Duplicate(agg, 1));
    util_jset(doc, KEY(WORKER_RESULTS), cJSON_CreateArray());
    char *hdr = hdr_of(agg);
    if (hdr)
        util_jset_str(doc, KEY(HISTOGRAM_HDR), hdr);
    free(hdr);
    return doc;
}

/* doc's workerResults rendered anew by the ladder (workers_seen in seen). */
static void rerender(cJSON *doc, const struct api_result_workers *src, const struct ladder *l,
                     size_t limit, struct workers_seen *seen)
{
    char *text = render_workers(src, l, limit, seen);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, KEY(WORKER_RESULTS), raw_taking(text));
}

static cJSON *from_to(int from, int to)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, "from", from);
    util_jset_num(o, "to", to);
    return o;
}

/* Writes what r says into doc's "downsampled" (wl: the longest worker timeline now). */
static void record(cJSON *doc, const struct reduction *r, int wl, size_t limit)
{
    cJSON *d = cJSON_CreateObject();
    util_jset_num(d, bench_key(BK_DOWNSAMPLED_LIMIT_BYTES), (double)limit);
    if (r->points && r->timeline_from > timeline_len(doc))
        util_jset(d, bench_key(BK_DOWNSAMPLED_TIMELINE_POINTS),
                  from_to(r->timeline_from, timeline_len(doc)));
    if (r->timelines_gone || (r->points && r->worker_from > wl))
        util_jset(d, bench_key(BK_DOWNSAMPLED_WORKER_TIMELINES),
                  from_to(r->worker_from, r->timelines_gone ? 0 : wl));
    if (r->histograms)
        util_jset_num(d, bench_key(BK_DOWNSAMPLED_WORKER_HISTOGRAMS), r->histograms);
    if (r->results_removed)
        util_jset_num(d, bench_key(BK_DOWNSAMPLED_WORKER_RESULTS), r->results_removed);
    util_jset(doc, KEY(DOWNSAMPLED), d);
}

/* One more step of the ladder (resultcm.h) given what the workers' results hold now (seen);
 * false when nothing is left to reduce. */
static bool reduce(cJSON *doc, struct reduction *r, struct ladder *l,
                   const struct workers_seen *seen, int n)
{
    int longest = timeline_len(doc);
    int wl = r->timelines_gone ? 0 : seen->longest;
    longest = wl > longest ? wl : longest;
    if (r->steps++ == 0) {
        r->timeline_from = timeline_len(doc);
        r->worker_from = wl;
    }
    if (longest > API_RESULT_MIN_POINTS && l->nthin < LADDER_MAX_THIN) {
        int to = longest / 2 > API_RESULT_MIN_POINTS ? longest / 2 : API_RESULT_MIN_POINTS;
        r->points = to;
        thin_timeline(doc, to);
        l->thin[l->nthin++] = to;
        return true;
    }
    if (!r->histograms) { /* the per-interval histograms of latencySeries go with them */
        l->no_histograms = true;
        if ((r->histograms = seen->histograms > seen->series ? seen->histograms : seen->series) > 0)
            return true;
    }
    if (!r->timelines_gone) {
        r->timelines_gone = true;
        l->no_timelines = true;
        if (seen->timelines > 0)
            return true;
    }
    if (!r->results_removed && n > 0 && !l->none) {
        r->results_removed = n;
        l->none = true;
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

cJSON *api_result_configmap_from(const cJSON *br, const cJSON *agg,
                                 const struct api_result_workers *src, size_t limit, char *err,
                                 size_t errlen)
{
    if (!cJSON_IsObject(agg)) {
        (void)snprintf(err, errlen, "no aggregate result");
        return NULL;
    }
    cJSON *doc = document(agg);
    struct reduction r = {0};
    struct ladder l = {0};
    struct workers_seen seen;
    size_t size = 0;
    cJSON *cm = NULL;
    rerender(doc, src, &l, limit, &seen);
    /* workers' text beyond the limit cannot fit: no need to print it */
    while (seen.over || !(cm = fitting(br, doc, limit, &size))) {
        if (!reduce(doc, &r, &l, &seen, src->n)) {
            (void)snprintf(err, errlen,
                           "the result takes %zu bytes even without the workers' results, more "
                           "than the %zu a ConfigMap may hold here",
                           size, limit);
            break;
        }
        rerender(doc, src, &l, limit, &seen);
        record(doc, &r, seen.longest, limit);
    }
    cJSON_Delete(doc);
    return cm;
}

/* The source over an array of trees: views of them. */
static cJSON *array_get(int i, void *ctx)
{
    const cJSON *const *results = ctx;
    return results[i] ? worker_view(results[i]) : NULL;
}

cJSON *api_result_configmap(const cJSON *br, const cJSON *agg, const cJSON *const *results, int n,
                            size_t limit, char *err, size_t errlen)
{
    struct api_result_workers src = {.n = n, .get = array_get, .ctx = (void *)results};
    return api_result_configmap_from(br, agg, &src, limit, err, errlen);
}
