/* pkg/api/resultcm: the result ConfigMap <run>-result, where a run's whole result lasts.
 *
 * Status holds a trimmed projection of the aggregate (60 timeline points, no histogram, no
 * per-worker results); the pods' logs that hold the rest go with the Jobs. So when a run's
 * results are collected the reconciler also writes, before the status that ends the run, a
 * ConfigMap owned by the run (deleted with it, kept when the Jobs and pods go) whose data key
 * result.json is the aggregate as bench_aggregate makes it plus workerResults (every worker's
 * own result, by index), histogramHdr (the merged histogram, HdrHistogram V2 compressed base64)
 * and, when something had to be left out to fit, downsampled (what). docs/result-schema.md
 * describes it; status.resultRef names it. */
#ifndef PGBO_API_RESULTCM_H
#define PGBO_API_RESULTCM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define API_RESULT_KEY "result.json"
/* The serialized ConfigMap (its JSON, metadata included) stays below this: the API server takes
 * at most 1 MiB of data. */
#define API_RESULT_MAX_BYTES ((size_t)900 * 1024)
/* Timelines are never downsampled below status' own count. */
#define API_RESULT_MIN_POINTS 60

/* The ConfigMap for the run br (metadata.name, namespace, uid used) holding agg (may be NULL:
 * then NULL) and the n worker results (entries may be NULL), whose JSON form is shorter than
 * limit bytes. Too big, it is reduced in this order until it fits, each step recorded in
 * result.json's "downsampled": the timelines (the aggregate's and every worker's) halved, evenly
 * spaced as status keeps its own, down to API_RESULT_MIN_POINTS; the workers' histograms
 * removed; the workers' timelines removed; the worker results removed. Returns a new object (the
 * caller owns it) or NULL with the reason in err (no aggregate, or nothing left to remove). The
 * inputs are not changed. */
cJSON *api_result_configmap(const cJSON *br, const cJSON *agg, const cJSON *const *results, int n,
                            size_t limit, char *err, size_t errlen);

/* Where api_result_configmap_from reads the n worker results: get(i, ctx) returns worker i's
 * result as a new tree the builder changes and deletes (NULL: the worker has none). The builder
 * asks for each one as often as the ladder takes steps and holds one at a time, so a caller can
 * keep the results as text and parse one per call (pkg/controller/collect.h). */
struct api_result_workers {
    int n;
    cJSON *(*get)(int i, void *ctx);
    void *ctx;
};

/* api_result_configmap with the worker results read from src: the same ConfigMap. The workers'
 * text is cut short once it alone passes limit (it cannot fit then), so the builder holds one
 * parsed result, the document's text and the ConfigMap, whatever the number of workers. */
cJSON *api_result_configmap_from(const cJSON *br, const cJSON *agg,
                                 const struct api_result_workers *src, size_t limit, char *err,
                                 size_t errlen);

#endif
