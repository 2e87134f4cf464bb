/* pkg/plugin/target: `kubectl pgbench run` target flags -> spec.target.
 *
 * Every distribution that is not CloudNativePG becomes host + user + passwordSecretRef exactly as
 * the table "Expressing other PostgreSQL distributions" in docs/spec.md says; CloudNativePG uses
 * the spec's own cnpg shortcut. The mapping also names the Service and the Secret key it expects,
 * so the caller can check them against the cluster before creating anything. */
#ifndef PGBO_PLUGIN_TARGET_H
#define PGBO_PLUGIN_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

enum plugin_distro {
    PLUGIN_HOST,       /* --host H --user U [--password-secret S[/key]] */
    PLUGIN_CNPG,       /* --cnpg CLUSTER [--service rw|ro|r] [--user U] */
    PLUGIN_BITNAMI,    /* --bitnami RELEASE: postgresql chart, standalone or replication */
    PLUGIN_BITNAMI_HA, /* --bitnami RELEASE --bitnami-arch ha: postgresql-ha (Pgpool) */
    PLUGIN_STACKGRES,  /* --stackgres CLUSTER */
    PLUGIN_ZALANDO,    /* --zalando CLUSTER */
};

struct plugin_target_opts {
    enum plugin_distro distro;
    const char *name;            /* host, cluster or release */
    const char *service;         /* "rw" (default), "ro"; cnpg also "r" */
    const char *user;            /* NULL: the distribution's default */
    const char *password_secret; /* "NAME" or "NAME/KEY"; NULL: the distribution's */
    bool replication;            /* Bitnami postgresql with architecture: replication */
    const char *database;        /* NULL: spec default */
    int port;                    /* 0: default */
    const char *ssl_mode;        /* NULL: default */
    bool connect_retry_set;      /* connectRetrySeconds = connect_retry_s; else the spec default */
    long connect_retry_s;
};

/* What the mapping expects in the cluster (pointers into `buf` storage of the struct). */
struct plugin_target_expect {
    char service[256]; /* the Service behind host ("" for cnpg: the operator resolves it) */
    char secret[256];  /* "" when no password */
    char key[128];
    char user_key[128]; /* the Secret's key naming the role ("" when the user is given) */
};

/* Builds spec.target (a new object, caller frees) and fills *expect. Returns NULL with a message
 * in err naming the flag when the combination is wrong (e.g. --service ro with StackGres is fine,
 * --service r is CloudNativePG's only). */
cJSON *plugin_target_build(const struct plugin_target_opts *o, struct plugin_target_expect *expect,
                           char *err, size_t errlen);

#endif
