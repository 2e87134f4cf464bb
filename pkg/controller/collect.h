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

/* A worker's result as kept: two slots, the tree (slim when *kept is set, else whole) and the
 * packed whole result (ctrl_observed.results[i] and .kept[i], pkg/controller/reconcile.h). */
struct ctrl_kept_result;

/* Keeps full (NULL: none; takes ownership) in a worker's slots, replacing what they held. */
void ctrl_result_keep(cJSON **slim, struct ctrl_kept_result **kept, cJSON *full);
/* A whole result packed as o keeps it (deflated JSON), to keep elsewhere; free() it. */
struct ctrl_kept_result *ctrl_result_pack(const cJSON *full);
/* A worker's whole result, packed, taken out of its slots (NULL: none). */
struct ctrl_kept_result *ctrl_result_take(cJSON **slim, struct ctrl_kept_result **kept);
/* Keeps packed (a whole result; takes ownership) in a worker's slots. */
void ctrl_result_keep_packed(cJSON **slim, struct ctrl_kept_result **kept,
                             struct ctrl_kept_result *packed);
/* Frees what a worker's slots hold. */
void ctrl_result_drop(cJSON **slim, struct ctrl_kept_result **kept);
/* A worker's whole result as a new tree (the caller deletes it); NULL when it has none. */
cJSON *ctrl_result_whole(const cJSON *slim, const struct ctrl_kept_result *kept);
/* The bytes n packed results take, and as JSON text. */
void ctrl_result_sizes(struct ctrl_kept_result *const *kept, int n, size_t *packed, size_t *text);

/* The aggregate of n workers' results (bench_aggregate's, folded one result at a time). */
cJSON *ctrl_collect_aggregate(cJSON *const *results, struct ctrl_kept_result *const *kept, int n,
                              char *err, size_t errlen);
/* The result ConfigMap (api_result_configmap) of the run br, agg and n workers' results, read
 * one at a time.
 */
cJSON *ctrl_collect_configmap(const cJSON *br, const cJSON *agg, cJSON *const *results,
                              struct ctrl_kept_result *const *kept, int n, size_t limit, char *err,
                              size_t errlen);

#endif
