/* Informer events -> work-queue keys: the glue every controller over pkg/kube needs. */
#include <stdio.h>
#include <string.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"

bool kube_label_key(const cJSON *obj, const char *label, char *buf, size_t n)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(md, "namespace");
    const cJSON *owner =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(md, "labels"), label);
    if (!cJSON_IsString(ns) || !cJSON_IsString(owner))
        return false;
    int len = snprintf(buf, n, "%s/%s", ns->valuestring, owner->valuestring);
    return len > 0 && (size_t)len < n;
}

bool kube_enqueue_index(const cJSON *obj, char *buf, size_t n, void *ud)
{
    const struct kube_enqueue *e = ud;
    if (e->owner_label)
        return kube_label_key(obj, e->owner_label, buf, n);
    return kube__object_key(obj, buf, n) == 0;
}

static void on_add(const cJSON *obj, void *ud)
{
    const struct kube_enqueue *e = ud;
    char key[512];
    if (kube_enqueue_index(obj, key, sizeof(key), ud))
        kube_queue_add(e->q, key);
}

static void on_update(const cJSON *old_obj, const cJSON *new_obj, void *ud)
{
    (void)old_obj;
    on_add(new_obj, ud);
}

static void on_delete(const cJSON *obj, void *ud)
{
    const struct kube_enqueue *e = ud;
    char key[512];
    if (e->owner_label) { /* the owner decides what the loss of its object means */
        on_add(obj, ud);
        return;
    }
    if (kube__object_key(obj, key, sizeof(key)) != 0)
        return;
    kube_queue_forget(e->q, key);
    if (e->on_delete)
        e->on_delete(obj, key, e->ud);
}

void kube_enqueue_handlers(struct kube_informer_handlers *h)
{
    h->on_add = on_add;
    h->on_update = on_update;
    h->on_delete = on_delete;
}

int kube_informer_enqueue(struct kube_client *c, const struct kube_resource *r, const char *ns,
                          struct kube_enqueue *e, void (*transform)(cJSON *obj, void *ud),
                          bool indexed, struct kube_informer **out)
{
    struct kube_informer_handlers h = {.transform = transform,
                                       .index = indexed ? kube_enqueue_index : NULL};
    kube_enqueue_handlers(&h);
    return kube_informer_new(c, r, ns, e->owner_label, &h, e, out);
}
