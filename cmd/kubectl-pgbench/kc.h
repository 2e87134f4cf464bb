/* kubectl-pgbench: blocking calls over pkg/kube's asynchronous client (one private loop). */
#ifndef PGBO_KUBECTL_PGBENCH_KC_H
#define PGBO_KUBECTL_PGBENCH_KC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "pkg/kube/kube.h"

/* kubectl's connection flags. */
struct kc_flags {
    const char *kubeconfig, *context, *ns;
};

struct kc {
    uv_loop_t loop;
    struct kube_config *cfg;
    struct kube_client *client;
    char ns[254];
};

/* Loads the kubeconfig as kubectl does (--kubeconfig, $KUBECONFIG, ~/.kube/config; --context;
 * -n, else the context's namespace). Returns 0 or -errno with err. */
int kc_open(struct kc *k, const struct kc_flags *f, char *err, size_t errlen);
void kc_close(struct kc *k);
/* The namespace kc_open would use, without connecting ("default" when no kubeconfig loads). */
void kc_namespace(const struct kc_flags *f, char *out, size_t len);

/* KC_LIST_ALL: a list in every namespace. */
enum kc_verb { KC_GET, KC_LIST, KC_LIST_ALL, KC_CREATE, KC_DELETE };

struct kc_reply {
    struct kube_status st;
    cJSON *body; /* owned: cJSON_Delete */
    char *text;  /* owned: free (GET of a log) */
};

/* One request, waited for. Returns 0 when it was answered (any HTTP status: see reply->st). */
int kc_call(struct kc *k, enum kc_verb verb, const struct kube_resource *r, const char *name,
            const cJSON *body, const struct kube_opts *o, struct kc_reply *reply);
void kc_reply_free(struct kc_reply *r);
/* "NotFound: benchmarkruns.pgbench.dev \"x\" not found" */
void kc_describe(const struct kube_status *st, char *out, size_t len);
/* Runs the loop for ms milliseconds (for polling). */
void kc_sleep(struct kc *k, long ms);

#endif
