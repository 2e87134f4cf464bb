/* Blocking requests over pkg/kube: each call runs the private loop until its answer arrives. */
#include "kc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/mem.h"

int kc_open(struct kc *k, const struct kc_flags *f, char *err, size_t errlen)
{
    memset(k, 0, sizeof(*k));
    int rc = uv_loop_init(&k->loop);
    if (rc)
        return rc;
    rc = kube_config_load(f->kubeconfig, f->context, &k->cfg, err, errlen);
    if (rc) {
        uv_loop_close(&k->loop);
        return rc;
    }
    (void)snprintf(k->ns, sizeof(k->ns), "%s",
                   f->ns ? f->ns : (k->cfg->namespace ? k->cfg->namespace : "default"));
    rc = kube_client_new(&k->loop, k->cfg, &k->client);
    if (rc) {
        (void)snprintf(err, errlen, "cannot start the API client: %s", strerror(-rc));
        kube_config_free(k->cfg);
        uv_loop_close(&k->loop);
    }
    return rc;
}

void kc_close(struct kc *k)
{
    if (!k->client)
        return;
    kube_client_free(k->client);
    k->client = NULL;
    for (int i = 0; i < 10 && uv_run(&k->loop, UV_RUN_NOWAIT); i++)
        ;
    kube_config_free(k->cfg);
    (void)uv_loop_close(&k->loop);
}

void kc_namespace(const struct kc_flags *f, char *out, size_t len)
{
    if (f->ns) {
        (void)snprintf(out, len, "%s", f->ns);
        return;
    }
    struct kube_config *cfg = NULL;
    char err[256];
    if (kube_config_load(f->kubeconfig, f->context, &cfg, err, sizeof(err)) == 0 && cfg->namespace)
        (void)snprintf(out, len, "%s", cfg->namespace);
    else
        (void)snprintf(out, len, "default");
    kube_config_free(cfg);
}

struct pending {
    bool done;
    struct kc_reply *reply;
};

static void on_reply(struct kube_result *res, void *ud)
{
    struct pending *p = ud;
    p->reply->st = res->status;
    p->reply->body = res->body;
    res->body = NULL;
    if (res->text)
        p->reply->text = util_xstrndup(res->text, res->text_len);
    p->done = true;
}

int kc_call(struct kc *k, enum kc_verb verb, const struct kube_resource *r, const char *name,
            const cJSON *body, const struct kube_opts *o, struct kc_reply *reply)
{
    memset(reply, 0, sizeof(*reply));
    struct pending p = {false, reply};
    int rc;
    switch (verb) {
    case KC_GET:
        rc = kube_get(k->client, r, k->ns, name, o, on_reply, &p);
        break;
    case KC_LIST:
        rc = kube_list(k->client, r, k->ns, o, on_reply, &p);
        break;
    case KC_LIST_ALL:
        rc = kube_list(k->client, r, NULL, o, on_reply, &p);
        break;
    case KC_CREATE:
        rc = kube_create(k->client, r, k->ns, body, o, on_reply, &p);
        break;
    case KC_DELETE:
        rc = kube_delete(k->client, r, k->ns, name, o, on_reply, &p);
        break;
    default:
        return -EINVAL;
    }
    if (rc)
        return rc;
    while (!p.done)
        uv_run(&k->loop, UV_RUN_ONCE);
    return 0;
}

void kc_reply_free(struct kc_reply *r)
{
    cJSON_Delete(r->body);
    free(r->text);
    memset(r, 0, sizeof(*r));
}

void kc_describe(const struct kube_status *st, char *out, size_t len)
{
    if (st->http == 0)
        (void)snprintf(out, len, "no answer from the API server: %s", st->message);
    else if (st->message[0])
        (void)snprintf(out, len, "%s%s%s", st->reason, st->reason[0] ? ": " : "", st->message);
    else
        (void)snprintf(out, len, "HTTP %d", st->http);
}

static void on_timer(uv_timer_t *t)
{
    *(bool *)t->data = true;
}

void kc_sleep(struct kc *k, long ms)
{
    uv_timer_t t;
    bool fired = false;
    uv_timer_init(&k->loop, &t);
    t.data = &fired;
    uv_timer_start(&t, on_timer, (uint64_t)ms, 0);
    while (!fired)
        uv_run(&k->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&k->loop, UV_RUN_NOWAIT);
}
