/* Where a run's workers ran: one per node, or sharing one while another node was free. */
#include "pkg/api/placement.h"
#include "pkg/util/buf.h"
#include "pkg/util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nodes named in a message before "and N more". */
#define NAMED_NODES 8

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* v1.Toleration.ToleratesTaint */
static bool tolerates(const cJSON *tol, const char *key, const char *value, const char *effect)
{
    const char *te = util_jstr(tol, "effect"), *tk = util_jstr(tol, "key");
    const char *op = util_jstr(tol, "operator"), *tv = util_jstr(tol, "value");
    if (te && *te && !str_eq(te, effect))
        return false;
    if (tk && *tk && !str_eq(tk, key))
        return false;
    if (str_eq(op, "Exists"))
        return true;
    return strcmp(tv ? tv : "", value ? value : "") == 0;
}

static bool tolerated(const cJSON *tmpl, const char *key, const char *value, const char *effect)
{
    const cJSON *t;
    cJSON_ArrayForEach(
        t, util_jget(tmpl, "tolerations")) if (tolerates(t, key, value, effect)) return true;
    return false;
}

static bool node_ready(const cJSON *node)
{
    const cJSON *c;
    cJSON_ArrayForEach(
        c,
        util_jget(node,
                  "status.conditions")) if (str_eq(util_jstr(c, "type"),
                                                   "Ready")) return str_eq(util_jstr(c, "status"),
                                                                           "True");
    return false;
}

/* One NodeSelectorRequirement against the node's labels. */
static bool requirement(const cJSON *r, const cJSON *labels)
{
    const char *key = util_jstr(r, "key"), *op = util_jstr(r, "operator");
    const cJSON *v = key ? cJSON_GetObjectItemCaseSensitive(labels, key) : NULL;
    const char *val = cJSON_GetStringValue(v); /* NULL unless a string */
    bool in = false;
    const cJSON *it;
    cJSON_ArrayForEach(it, util_jget(r, "values")) in = in || str_eq(it->valuestring, val);
    const cJSON *first = cJSON_GetArrayItem(util_jget(r, "values"), 0);
    long bound = cJSON_IsString(first) ? strtol(first->valuestring, NULL, 10) : 0;
    if (str_eq(op, "In"))
        return in;
    if (str_eq(op, "NotIn"))
        return !in;
    if (str_eq(op, "Exists"))
        return val != NULL;
    if (str_eq(op, "DoesNotExist"))
        return val == NULL;
    if (str_eq(op, "Gt"))
        return val && strtol(val, NULL, 10) > bound;
    if (str_eq(op, "Lt"))
        return val && strtol(val, NULL, 10) < bound;
    return false;
}

/* nodeSelector and requiredDuringSchedulingIgnoredDuringExecution's terms (ORed; each term's
 * matchExpressions ANDed; matchFields are not judged here: they name nodes, which the user chose).
 */
static bool affinity_matches(const cJSON *node, const cJSON *tmpl)
{
    const cJSON *labels = util_jget(node, "metadata.labels");
    const cJSON *it;
    cJSON_ArrayForEach(it, util_jget(tmpl, "nodeSelector"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, it->string);
        if (!str_eq(cJSON_GetStringValue(v), cJSON_GetStringValue(it)))
            return false;
    }
    const cJSON *terms = util_jget(
        tmpl,
        "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    if (!cJSON_IsArray(terms))
        return true;
    const cJSON *t;
    cJSON_ArrayForEach(t, terms)
    {
        bool all = cJSON_GetArraySize(util_jget(t, "matchExpressions")) > 0;
        const cJSON *r;
        cJSON_ArrayForEach(r, util_jget(t, "matchExpressions")) all = all && requirement(r, labels);
        if (all)
            return true;
    }
    return false;
}

bool api_node_schedulable(const cJSON *node, const cJSON *tmpl, char *why, size_t len)
{
    if (!node_ready(node)) {
        (void)snprintf(why, len, "not Ready");
        return false;
    }
    if (cJSON_IsTrue(util_jget(node, "spec.unschedulable")) &&
        !tolerated(tmpl, "node.kubernetes.io/unschedulable", NULL, "NoSchedule")) {
        (void)snprintf(why, len, "cordoned");
        return false;
    }
    const cJSON *t;
    cJSON_ArrayForEach(t, util_jget(node, "spec.taints"))
    {
        const char *k = util_jstr(t, "key"), *v = util_jstr(t, "value"),
                   *e = util_jstr(t, "effect");
        if ((str_eq(e, "NoSchedule") || str_eq(e, "NoExecute")) && !tolerated(tmpl, k, v, e)) {
            (void)snprintf(why, len, "taint %s%s%s:%s", k ? k : "", v && *v ? "=" : "", v ? v : "",
                           e);
            return false;
        }
    }
    if (!affinity_matches(node, tmpl)) {
        (void)snprintf(why, len, "not matching spec.podTemplate's nodeSelector/affinity");
        return false;
    }
    return true;
}

static bool placed(const char *node)
{
    return node && *node;
}

/* "workers 0 and 2 share node a; workers 1, 3 and 5 share node b" into b. */
static void sharing_groups(const char *const *nodes, int n, struct buf *b)
{
    int groups = 0;
    for (int i = 0; i < n; i++) {
        bool first = true; /* the lowest worker on its node */
        int count = 0;
        for (int j = 0; j < n; j++) {
            if (!str_eq(nodes[j], nodes[i]))
                continue;
            first = first && j >= i;
            count++;
        }
        if (!first || count < 2)
            continue;
        (void)buf_printf(b, "%sworkers ", groups++ ? "; " : "");
        int k = 0;
        for (int j = i; j < n; j++) {
            if (!str_eq(nodes[j], nodes[i]))
                continue;
            k++;
            (void)buf_printf(b, "%s%d", k == 1 ? "" : k == count ? " and " : ", ", j);
        }
        (void)buf_printf(b, " share node %s", nodes[i]);
    }
}

bool api_workers_placed(const char *const *nodes, int n, bool *shared, char *msg, size_t len)
{
    *shared = false;
    for (int i = 0; i < n; i++) {
        if (!placed(nodes[i]))
            return false;
        for (int j = 0; j < i; j++)
            *shared = *shared || str_eq(nodes[i], nodes[j]);
    }
    struct buf b = BUF_INIT(len ? len - 1 : 0);
    if (*shared) {
        sharing_groups(nodes, n, &b);
    } else {
        (void)buf_printf(&b, "each of the %d workers ran on a node of its own:", n);
        for (int i = 0; i < n && i < NAMED_NODES; i++)
            (void)buf_printf(&b, "%s worker %d on %s", i ? "," : "", i, nodes[i]);
        if (n > NAMED_NODES)
            (void)buf_printf(&b, " and %d more", n - NAMED_NODES);
    }
    (void)snprintf(msg, len, "%s", b.data ? b.data : "");
    buf_free(&b);
    return true;
}

static bool runs_worker(const char *const *nodes, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (str_eq(nodes[i], name))
            return true;
    return false;
}

bool api_sharing_avoidable(const char *const *nodes, int n, const char *shared_msg,
                           const cJSON *items, const cJSON *tmpl, char *msg, size_t len)
{
    struct buf fr = BUF_INIT(512), out = BUF_INIT(512);
    int nfree = 0, nout = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, items)
    {
        const char *name = util_jstr(node, "metadata.name");
        char why[160];
        if (!name || runs_worker(nodes, n, name))
            continue;
        if (api_node_schedulable(node, tmpl, why, sizeof(why))) {
            if (nfree++ < NAMED_NODES)
                (void)buf_printf(&fr, "%s%s", nfree > 1 ? ", " : "", name);
        } else if (nout++ < NAMED_NODES) {
            (void)buf_printf(&out, "%s%s: %s", nout > 1 ? "; " : "", name, why);
        }
    }
    if (nfree > NAMED_NODES)
        (void)buf_printf(&fr, " and %d more", nfree - NAMED_NODES);
    if (nout > NAMED_NODES)
        (void)buf_printf(&out, "; and %d more", nout - NAMED_NODES);
    if (nfree > 0)
        (void)snprintf(
            msg, len,
            "%s while %d other node%s %s schedulable (%s): those workers share its CPU "
            "and network; spec.placement.mode spread (the default) only prefers one "
            "worker per node, a hard rule is mode custom with a topologySpreadConstraint "
            "{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
            "DoNotSchedule}",
            shared_msg, nfree, nfree == 1 ? "" : "s", nfree == 1 ? "was" : "were", fr.data);
    else if (nout > 0)
        (void)snprintf(msg, len, "%s; no other node was schedulable (%s)", shared_msg, out.data);
    else
        (void)snprintf(msg, len, "%s; the cluster has no other node", shared_msg);
    buf_free(&fr);
    buf_free(&out);
    return nfree > 0;
}
