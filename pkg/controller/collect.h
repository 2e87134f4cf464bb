/* pkg/controller/collect: the workers' results while a run is collected, held small.
 *
 * A parsed worker result is about 23 times its JSON (its latencySeries three quarters of that);
 * the 64 of e2e 110, held at once for the aggregate and the result ConfigMap, took 100 MiB. So the
 * executor keeps each result (ctrl_result_keep) as its JSON text, deflated, beside a slim tree in
 * ctrl_observed.results: the result without its per-interval members (histogram, latencySeries,
 * timeline), which is all that status, the checks and the timing read of a worker. The aggregate
 * (bench_agg) and the result ConfigMap (api_result_configmap_from) parse the whole results back
 * one worker at a time, so the operator holds one parsed result, not all of them. */
#ifndef PGBO_CONTROLLER_COLLECT_H
#define PGBO_CONTROLLER_COLLECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/controller/reconcile.h"

/* Keeps full (NULL: none; takes ownership) as worker i's result in o, replacing what o held. */
void ctrl_result_keep(struct ctrl_observed *o, int i, cJSON *full);
/* A whole result packed as o keeps it (deflated JSON), to keep elsewhere; free() it. */
struct ctrl_kept_result *ctrl_result_pack(const cJSON *full);
/* Worker i's whole result, packed, taken out of o (NULL: none). */
struct ctrl_kept_result *ctrl_result_take(struct ctrl_observed *o, int i);
/* Keeps packed (a whole result; takes ownership) as worker i's result in o. */
void ctrl_result_keep_packed(struct ctrl_observed *o, int i, struct ctrl_kept_result *packed);
/* Frees worker i's result in o (both forms). */
void ctrl_result_drop(struct ctrl_observed *o, int i);
/* Worker i's whole result as a new tree (the caller deletes it); NULL when it has none. */
cJSON *ctrl_result_whole(const struct ctrl_observed *o, int i);
/* The bytes o's n results take as kept (deflated text), and as JSON text. */
void ctrl_result_sizes(const struct ctrl_observed *o, int n, size_t *kept, size_t *text);

/* The aggregate of o's n worker results (bench_aggregate's, folded one result at a time). */
cJSON *ctrl_collect_aggregate(const struct ctrl_observed *o, int n, char *err, size_t errlen);
/* The result ConfigMap (api_result_configmap) of agg and o's n worker results, read one at a time.
 */
cJSON *ctrl_collect_configmap(const struct ctrl_observed *o, const cJSON *agg, int n, size_t limit,
                              char *err, size_t errlen);

#endif
