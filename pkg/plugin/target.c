/* Target flags -> spec.target, per the distribution table in docs/spec.md. */
#include "pkg/plugin/target.h"
#include "pkg/util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_str(cJSON *o, const char *k, const char *v)
{
    if (!cJSON_AddStringToObject(o, k, v))
        abort();
}

static int secret_ref(cJSON *t, const char *ref, const char *def_key,
                      struct plugin_target_expect *e)
{
    const char *slash = strchr(ref, '/');
    size_t n = slash ? (size_t)(slash - ref) : strlen(ref);
    if (n == 0 || n >= sizeof(e->secret) ||
        (slash && (!slash[1] || strlen(slash + 1) >= sizeof(e->key))))
        return -1;
    memcpy(e->secret, ref, n);
    e->secret[n] = '\0';
    (void)snprintf(e->key, sizeof(e->key), "%s", slash ? slash + 1 : def_key);
    cJSON *p = cJSON_AddObjectToObject(t, "passwordSecretRef");
    if (!p)
        abort();
    put_str(p, "name", e->secret);
    put_str(p, "key", e->key);
    return 0;
}

cJSON *plugin_target_build(const struct plugin_target_opts *o, struct plugin_target_expect *e,
                           char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    const char *svc = o->service ? o->service : "rw";
    bool ro = strcmp(svc, "ro") == 0;
    if (strcmp(svc, "rw") && !ro && !(strcmp(svc, "r") == 0 && o->distro == PLUGIN_CNPG)) {
        (void)util_errf(err, errlen,
                        o->distro == PLUGIN_CNPG ? "--service \"%s\": one of rw, ro, r"
                                                 : "--service \"%s\": one of rw (the primary), ro "
                                                   "(the read Service)",
                        svc);
        return NULL;
    }
    if (!o->name || !*o->name) {
        (void)util_errf(err, errlen,
                        "a target is required: --host, --cnpg, --bitnami, "
                        "--stackgres or --zalando");
        return NULL;
    }
    cJSON *t = cJSON_CreateObject();
    if (!t)
        abort();
    char host[256] = "", user[128] = "", secret[200] = "";
    const char *key = "password";
    switch (o->distro) {
    case PLUGIN_HOST:
        if (ro) {
            (void)util_errf(err, errlen,
                            "--service ro: with --host, give the read Service as "
                            "--host");
            goto fail;
        }
        (void)snprintf(host, sizeof(host), "%s", o->name);
        if (!o->user) {
            (void)util_errf(err, errlen, "--host needs --user (the role to connect as)");
            goto fail;
        }
        break;
    case PLUGIN_CNPG: {
        if (o->password_secret) {
            (void)util_errf(err, errlen,
                            "--cnpg takes the password from the Cluster's app Secret: "
                            "drop --password-secret, or use --host");
            goto fail;
        }
        cJSON *c = cJSON_AddObjectToObject(t, "cnpg");
        if (!c)
            abort();
        put_str(c, "clusterName", o->name);
        put_str(c, "service", svc);
        (void)snprintf(e->service, sizeof(e->service), "%s-%s", o->name, svc);
        (void)snprintf(e->secret, sizeof(e->secret), "%s-app", o->name);
        (void)snprintf(e->key, sizeof(e->key), "password");
        if (o->user) /* an override of the Secret's username */
            put_str(t, "user", o->user);
        else
            (void)snprintf(e->user_key, sizeof(e->user_key), "username");
        goto common;
    }
    case PLUGIN_BITNAMI:
        /* standalone: <r>-postgresql; replication: -primary and -read */
        if (o->replication)
            (void)snprintf(host, sizeof(host), "%s-postgresql-%s", o->name,
                           ro ? "read" : "primary");
        else if (ro) {
            (void)util_errf(err, errlen,
                            "--service ro: a standalone Bitnami postgresql has no "
                            "read Service (add --bitnami-arch replication)");
            goto fail;
        } else
            (void)snprintf(host, sizeof(host), "%s-postgresql", o->name);
        (void)snprintf(secret, sizeof(secret), "%s-postgresql", o->name);
        /* auth.username's password is key "password"; postgres's is "postgres-password" */
        key = o->user && strcmp(o->user, "postgres") ? "password" : "postgres-password";
        break;
    case PLUGIN_BITNAMI_HA:
        if (ro) {
            (void)util_errf(err, errlen,
                            "--service ro: postgresql-ha reads go through Pgpool "
                            "(load balancing), which is the default host");
            goto fail;
        }
        (void)snprintf(host, sizeof(host), "%s-postgresql-ha-pgpool", o->name);
        (void)snprintf(secret, sizeof(secret), "%s-postgresql-ha-postgresql", o->name);
        break;
    case PLUGIN_STACKGRES:
        (void)snprintf(host, sizeof(host), ro ? "%s-replicas" : "%s", o->name);
        if (o->user && strcmp(o->user, "postgres") && !o->password_secret) {
            (void)util_errf(err, errlen,
                            "--stackgres with --user %s: give that user's Secret "
                            "with --password-secret (the cluster's Secret holds "
                            "postgres's password)",
                            o->user);
            goto fail;
        }
        (void)snprintf(secret, sizeof(secret), "%s", o->name);
        key = "superuser-password";
        break;
    case PLUGIN_ZALANDO: {
        const char *u = o->user ? o->user : "postgres";
        (void)snprintf(host, sizeof(host), ro ? "%s-repl" : "%s", o->name);
        /* the operator names credentials <user with _ as ->.<cluster>.credentials... */
        char uu[128];
        (void)snprintf(uu, sizeof(uu), "%s", u);
        for (char *p = uu; *p; p++)
            if (*p == '_')
                *p = '-';
        (void)snprintf(secret, sizeof(secret), "%s.%s.credentials.postgresql.acid.zalan.do", uu,
                       o->name);
        break;
    }
    }
    put_str(t, "host", host);
    if (o->distro != PLUGIN_HOST) /* a plain host may be external or an IP: not checked */
        (void)snprintf(e->service, sizeof(e->service), "%s", host);
    (void)snprintf(user, sizeof(user), "%s", o->user ? o->user : "postgres");
    put_str(t, "user", user);
    if (o->password_secret) {
        if (secret_ref(t, o->password_secret, "password", e)) {
            (void)util_errf(err, errlen, "--password-secret \"%s\": expected NAME or NAME/KEY",
                            o->password_secret);
            goto fail;
        }
    } else if (secret[0]) {
        char ref[512];
        (void)snprintf(ref, sizeof(ref), "%s/%s", secret, key);
        (void)secret_ref(t, ref, key, e);
    }
common:
    if (o->port)
        cJSON_AddNumberToObject(t, "port", o->port);
    if (o->database)
        put_str(t, "database", o->database);
    if (o->ssl_mode)
        put_str(t, "sslMode", o->ssl_mode);
    return t;
fail:
    cJSON_Delete(t);
    return NULL;
}
