/* pkg/api/placement: where a run's workers ran, and whether two of them shared a node while
 * another node could have taken one (condition API_COND_WORKERS_SHARE_NODE).
 *
 * spec.placement (spread, the default; pack; custom) is written onto the run Job by
 * pkg/api/manifest.c; this module judges what the scheduler did with it. Its inputs are plain
 * JSON (the workers' node names, the API server's NodeList items, the spec's podTemplate), so
 * the judgement is a pure function. */
#ifndef PGBO_API_PLACEMENT_H
#define PGBO_API_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* True: two workers share a node while a schedulable node ran none (reason
 * API_PLACEMENT_SHARED); False: one worker per node (API_PLACEMENT_ONE_PER_NODE), no other node
 * was schedulable (API_PLACEMENT_NO_OTHER_NODE) or the nodes could not be read
 * (API_PLACEMENT_NODES_UNKNOWN). Set once, with the start barrier (every worker's pod Ready, so
 * on a node); absent for one worker and with spec.placement.mode pack. */
#define API_COND_WORKERS_SHARE_NODE "WorkersShareNode"
#define API_PLACEMENT_SHARED "SharedNode"
#define API_PLACEMENT_ONE_PER_NODE "OnePerNode"
#define API_PLACEMENT_NO_OTHER_NODE "NoOtherNode"
#define API_PLACEMENT_NODES_UNKNOWN "NodesUnknown"

/* Whether a Node could take a worker pod whose scheduling fields (nodeSelector, tolerations,
 * affinity) are those of tmpl (spec.podTemplate, may be NULL): Ready, not cordoned, every
 * NoSchedule/NoExecute taint tolerated, nodeSelector and required node affinity matched. When
 * not, why (e.g. "cordoned", "not Ready", "taint dedicated=db:NoSchedule") goes into why. */
bool api_node_schedulable(const cJSON *node, const cJSON *tmpl, char *why, size_t len);

/* nodes[i]: worker i's node (NULL or "" when its pod is not on one yet). Returns false when a
 * worker is not placed yet; else true with *shared telling whether two workers share a node,
 * and msg the condition's message so far: "each of the 4 workers ran on a node of its own
 * (sim-node-1 ... )" or "workers 0 and 2 share node sim-node-1". */
bool api_workers_placed(const char *const *nodes, int n, bool *shared, char *msg, size_t len);

/* The condition for shared workers (api_workers_placed said so, its message in shared_msg):
 * items are the cluster's Nodes (a NodeList's items). Returns true (the condition True, reason
 * API_PLACEMENT_SHARED) when a schedulable node ran no worker, and writes the message naming
 * the workers, their node, the free nodes and the fix; false (reason
 * API_PLACEMENT_NO_OTHER_NODE) with the message saying why every other node was out. */
bool api_sharing_avoidable(const char *const *nodes, int n, const char *shared_msg,
                           const cJSON *items, const cJSON *tmpl, char *msg, size_t len);

#endif
