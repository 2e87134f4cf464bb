/* Target flags -> spec.target, per the distribution table in docs/spec.md. */
#include "pkg/plugin/target.h"
#include "pkg/util/err.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <stdio.h>
#include <string.h>

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
    cJSON *p = util_must(cJSON_AddObjectToObject(t, "passwordSecretRef"));
    util_jset_str(p, "name", e->secret);
    util_jset_str(p, "key", e->key);
    return 0;
}

/* What a distribution's flags name: the host (its Service), the Secret holding the password and
 * its key; secret "" when none. */
struct names {
    char host[256], secret[200];
    const char *key;
};

typedef int (*names_fn)(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                        size_t errlen);

static int host_names(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                      size_t errlen)
{
    if (ro)
        return util_errf(err, errlen, "--service ro: with --host, give the read Service as --host");
    (void)snprintf(n->host, sizeof(n->host), "%s", o->name);
    if (!o->user)
        return util_errf(err, errlen, "--host needs --user (the role to connect as)");
    return 0;
}

/* standalone: <r>-postgresql; replication: -primary and -read */
static int bitnami_names(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                         size_t errlen)
{
    if (o->replication)
        (void)snprintf(n->host, sizeof(n->host), "%s-postgresql-%s", o->name,
                       ro ? "read" : "primary");
    else if (ro)
        return util_errf(err, errlen,
                         "--service ro: a standalone Bitnami postgresql has no read Service (add "
                         "--bitnami-arch replication)");
    else
        (void)snprintf(n->host, sizeof(n->host), "%s-postgresql", o->name);
    (void)snprintf(n->secret, sizeof(n->secret), "%s-postgresql", o->name);
    /* auth.username's password is key "password"; postgres's is "postgres-password" */
    n->key = o->user && strcmp(o->user, "postgres") != 0 ? "password" : "postgres-password";
    return 0;
}

static int bitnami_ha_names(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                            size_t errlen)
{
    if (ro)
        return util_errf(err, errlen,
                         "--service ro: postgresql-ha reads go through Pgpool (load balancing), "
                         "which is the default host");
    (void)snprintf(n->host, sizeof(n->host), "%s-postgresql-ha-pgpool", o->name);
    (void)snprintf(n->secret, sizeof(n->secret), "%s-postgresql-ha-postgresql", o->name);
    return 0;
}

static int stackgres_names(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                           size_t errlen)
{
    (void)snprintf(n->host, sizeof(n->host), ro ? "%s-replicas" : "%s", o->name);
    if (o->user && strcmp(o->user, "postgres") != 0 && !o->password_secret)
        return util_errf(err, errlen,
                         "--stackgres with --user %s: give that user's Secret with "
                         "--password-secret (the cluster's Secret holds postgres's password)",
                         o->user);
    (void)snprintf(n->secret, sizeof(n->secret), "%s", o->name);
    n->key = "superuser-password";
    return 0;
}

static int zalando_names(const struct plugin_target_opts *o, bool ro, struct names *n, char *err,
                         size_t errlen)
{
    (void)err;
    (void)errlen;
    (void)snprintf(n->host, sizeof(n->host), ro ? "%s-repl" : "%s", o->name);
    /* the operator names credentials <user with _ as ->.<cluster>.credentials... */
    char uu[128];
    (void)snprintf(uu, sizeof(uu), "%s", o->user ? o->user : "postgres");
    for (char *p = uu; *p; p++)
        if (*p == '_')
            *p = '-';
    (void)snprintf(n->secret, sizeof(n->secret), "%s.%s.credentials.postgresql.acid.zalan.do", uu,
                   o->name);
    return 0;
}

/* By enum plugin_distro; CloudNativePG is the spec's own cnpg shortcut (cnpg_target). */
static const names_fn distro_names[] = {
    [PLUGIN_HOST] = host_names,
    [PLUGIN_BITNAMI] = bitnami_names,
    [PLUGIN_BITNAMI_HA] = bitnami_ha_names,
    [PLUGIN_STACKGRES] = stackgres_names,
    [PLUGIN_ZALANDO] = zalando_names,
};

static int cnpg_target(cJSON *t, const struct plugin_target_opts *o, const char *svc,
                       struct plugin_target_expect *e, char *err, size_t errlen)
{
    if (o->password_secret)
        return util_errf(err, errlen,
                         "--cnpg takes the password from the Cluster's app Secret: drop "
                         "--password-secret, or use --host");
    cJSON *c = util_must(cJSON_AddObjectToObject(t, "cnpg"));
    util_jset_str(c, "clusterName", o->name);
    util_jset_str(c, "service", svc);
    (void)snprintf(e->service, sizeof(e->service), "%s-%s", o->name, svc);
    (void)snprintf(e->secret, sizeof(e->secret), "%s-app", o->name);
    (void)snprintf(e->key, sizeof(e->key), "password");
    if (o->user) /* an override of the Secret's username */
        util_jset_str(t, "user", o->user);
    else
        (void)snprintf(e->user_key, sizeof(e->user_key), "username");
    return 0;
}

/* host + user + passwordSecretRef, from the distribution's names. */
static int plain_target(cJSON *t, const struct plugin_target_opts *o, bool ro,
                        struct plugin_target_expect *e, char *err, size_t errlen)
{
    struct names n = {.key = "password"};
    int rc = distro_names[o->distro](o, ro, &n, err, errlen);
    if (rc)
        return rc;
    util_jset_str(t, "host", n.host);
    if (o->distro != PLUGIN_HOST) /* a plain host may be external or an IP: not checked */
        (void)snprintf(e->service, sizeof(e->service), "%s", n.host);
    char user[128];
    (void)snprintf(user, sizeof(user), "%s", o->user ? o->user : "postgres");
    util_jset_str(t, "user", user);
    if (o->password_secret) {
        if (secret_ref(t, o->password_secret, "password", e))
            return util_errf(err, errlen, "--password-secret \"%s\": expected NAME or NAME/KEY",
                             o->password_secret);
    } else if (n.secret[0]) {
        char ref[512];
        (void)snprintf(ref, sizeof(ref), "%s/%s", n.secret, n.key);
        (void)secret_ref(t, ref, n.key, e);
    }
    return 0;
}

static int check_service(const struct plugin_target_opts *o, const char *svc, char *err,
                         size_t errlen)
{
    if (strcmp(svc, "rw") == 0 || strcmp(svc, "ro") == 0 ||
        (strcmp(svc, "r") == 0 && o->distro == PLUGIN_CNPG))
        return 0;
    return util_errf(err, errlen,
                     o->distro == PLUGIN_CNPG
                         ? "--service \"%s\": one of rw, ro, r"
                         : "--service \"%s\": one of rw (the primary), ro (the read Service)",
                     svc);
}

cJSON *plugin_target_build(const struct plugin_target_opts *o, struct plugin_target_expect *e,
                           char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    const char *svc = o->service ? o->service : "rw";
    if (check_service(o, svc, err, errlen))
        return NULL;
    if (!o->name || !*o->name) {
        (void)util_errf(err, errlen,
                        "a target is required: --host, --cnpg, --bitnami, "
                        "--stackgres or --zalando");
        return NULL;
    }
    cJSON *t = cJSON_CreateObject();
    int rc = o->distro == PLUGIN_CNPG ? cnpg_target(t, o, svc, e, err, errlen)
                                      : plain_target(t, o, strcmp(svc, "ro") == 0, e, err, errlen);
    if (rc) {
        cJSON_Delete(t);
        return NULL;
    }
    if (o->port)
        cJSON_AddNumberToObject(t, "port", o->port);
    if (o->database)
        util_jset_str(t, "database", o->database);
    if (o->ssl_mode)
        util_jset_str(t, "sslMode", o->ssl_mode);
    if (o->connect_retry_set)
        util_jset_num(t, "connectRetrySeconds", (double)o->connect_retry_s);
    return t;
}
