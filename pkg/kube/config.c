/* Client configuration: kubeconfig files (through libyaml's document API) and in-cluster
 * service-account configuration.
 *
 * Only one kubeconfig file is read: an explicit path, else the first entry of $KUBECONFIG,
 * else ~/.kube/config (client-go merges all $KUBECONFIG entries; we do not). Relative file
 * paths in the file resolve against the file's directory, as kubectl does. exec and
 * auth-provider credential plugins are not supported: a user that has only those is an error
 * naming the field. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"

#define SA_ROOT "/var/run/secrets/kubernetes.io/serviceaccount"
#define MAX_CONFIG_FILE (16u << 20)

struct kcparse {
    yaml_document_t doc;
    const char *name; /* file name for messages */
    const char *dir;  /* base for relative paths, NULL = as is */
    char *err;
    size_t errlen;
};

static int fail(struct kcparse *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct kcparse *p, int rc, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        int n = snprintf(p->err, p->errlen, "%s: ", p->name);
        if (n >= 0 && (size_t)n < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            /* analyzer false positive: va_start is right above */
            // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
            (void)vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return rc;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    /* analyzer false positive: va_start is right above */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    (void)vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- base64 (RFC 4648, standard alphabet; whitespace ignored) ---- */

static int b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decodes into a NUL-terminated allocation. */
static int base64_decode(const char *in, char **out, size_t *outlen)
{
    size_t len = strlen(in);
    char *o = util_xmalloc(len / 4 * 3 + 4);
    size_t n = 0;
    unsigned acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int v = b64val(c);
        if (v < 0 || pad) {
            free(o);
            return -EINVAL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    /* leftover bits must be padding zeros; 6 leftover bits means a lone character */
    if (bits >= 6 || pad > 2) {
        free(o);
        return -EINVAL;
    }
    o[n] = '\0';
    *out = o;
    if (outlen)
        *outlen = n;
    return 0;
}

/* ---- YAML document helpers ---- */

static yaml_node_t *node(struct kcparse *p, int id)
{
    return yaml_document_get_node(&p->doc, id);
}

static bool is_null(const yaml_node_t *n)
{
    if (!n)
        return true;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)n->data.scalar.value;
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static yaml_node_t *map_get(struct kcparse *p, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = node(p, pr->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) {
            yaml_node_t *v = node(p, pr->value);
            return is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

/* A scalar field: 0 with *out NULL when absent, -EINVAL (message set) when not a scalar. */
static int get_str(struct kcparse *p, yaml_node_t *map, const char *key, const char *path,
                   const char **out)
{
    *out = NULL;
    yaml_node_t *v = map_get(p, map, key);
    if (!v)
        return 0;
    if (v->type != YAML_SCALAR_NODE)
        return fail(p, -EINVAL, "%s.%s: expected a string", path, key);
    *out = (const char *)v->data.scalar.value;
    return 0;
}

/* Finds the entry named `name` in the sequence `list` ("clusters") and returns its `sub`
 * mapping ("cluster"). */
static int find_named(struct kcparse *p, yaml_node_t *root, const char *list, const char *sub,
                      const char *name, const char *ref, yaml_node_t **out)
{
    *out = NULL;
    yaml_node_t *seq = map_get(p, root, list);
    if (seq && seq->type != YAML_SEQUENCE_NODE)
        return fail(p, -EINVAL, "%s: expected a list", list);
    if (seq) {
        for (yaml_node_item_t *it = seq->data.sequence.items.start;
             it < seq->data.sequence.items.top; it++) {
            yaml_node_t *e = node(p, *it);
            const char *n = NULL;
            if (!e || e->type != YAML_MAPPING_NODE)
                return fail(p, -EINVAL, "%s[%ld]: expected a mapping", list,
                            (long)(it - seq->data.sequence.items.start));
            yaml_node_t *nn = map_get(p, e, "name");
            if (nn && nn->type == YAML_SCALAR_NODE)
                n = (const char *)nn->data.scalar.value;
            if (n && !strcmp(n, name)) {
                yaml_node_t *s = map_get(p, e, sub);
                if (!s)
                    return fail(p, -EINVAL, "%s[%s].%s: missing", list, name, sub);
                if (s->type != YAML_MAPPING_NODE)
                    return fail(p, -EINVAL, "%s[%s].%s: expected a mapping", list, name, sub);
                *out = s;
                return 0;
            }
        }
    }
    return fail(p, -ENOENT, "%s: %s \"%s\" not found", ref, sub, name);
}

/* Resolves a file path from the kubeconfig and checks that it is readable. */
static int file_field(struct kcparse *p, const char *val, const char *field, char **out)
{
    char *path;
    if (val[0] == '/' || !p->dir) {
        path = util_xstrdup(val);
    } else {
        size_t n = strlen(p->dir) + strlen(val) + 2;
        path = util_xmalloc(n);
        (void)snprintf(path, n, "%s/%s", p->dir, val);
    }
    if (access(path, R_OK) != 0) {
        int e = errno;
        fail(p, -e, "%s: %s: %s", field, path, strerror(e));
        free(path);
        return -e;
    }
    *out = path;
    return 0;
}

static int data_field(struct kcparse *p, const char *val, const char *field, char **out)
{
    if (base64_decode(val, out, NULL) < 0)
        return fail(p, -EINVAL, "%s: invalid base64", field);
    return 0;
}

static bool parse_bool(const char *v)
{
    return v && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"));
}

/* Reads the scalar fields keys[0..] (NULL-terminated) of map into out[0..], in order; the first
 * that is not a scalar is the error. */
static int get_strs(struct kcparse *p, yaml_node_t *map, const char *path, const char *const *keys,
                    const char **out)
{
    for (size_t i = 0; keys[i]; i++) {
        int rc = get_str(p, map, keys[i], path, &out[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* `<key>-data` (base64, into *data) wins over `<key>` (a file path, into *file). */
static int data_or_file(struct kcparse *p, const char *field, const char *key, const char *data_val,
                        const char *file_val, char **data, char **file)
{
    char sub[600];
    if (data_val) {
        (void)snprintf(sub, sizeof(sub), "%s.%s-data", field, key);
        return data_field(p, data_val, sub, data);
    }
    if (file_val) {
        (void)snprintf(sub, sizeof(sub), "%s.%s", field, key);
        return file_field(p, file_val, sub, file);
    }
    return 0;
}

/* The context (the named one, else current-context) and the cluster and user it names: sets
 * cfg->context and cfg->namespace, *user stays NULL when the context names none. */
static int parse_context(struct kcparse *p, yaml_node_t *root, const char *ctxname,
                         struct kube_config *cfg, yaml_node_t **cluster, const char **cluster_name,
                         yaml_node_t **user, const char **user_name)
{
    int rc;
    char field[512], ref[600];
    if (!ctxname) {
        if ((rc = get_str(p, root, "current-context", "", &ctxname)) < 0)
            return rc;
        if (!ctxname || !*ctxname)
            return fail(p, -EINVAL, "current-context: not set and no context chosen");
    }
    cfg->context = util_xstrdup(ctxname);

    yaml_node_t *ctx;
    if ((rc = find_named(p, root, "contexts", "context", ctxname, "contexts", &ctx)) < 0)
        return rc;
    static const char *const keys[] = {"cluster", "user", "namespace", NULL};
    const char *v[3];
    (void)snprintf(field, sizeof(field), "contexts[%s].context", ctxname);
    if ((rc = get_strs(p, ctx, field, keys, v)) < 0)
        return rc;
    *cluster_name = v[0];
    *user_name = v[1];
    if (!v[0] || !*v[0])
        return fail(p, -EINVAL, "%s.cluster: missing", field);
    (void)snprintf(ref, sizeof(ref), "%s.cluster", field);
    if ((rc = find_named(p, root, "clusters", "cluster", v[0], ref, cluster)) < 0)
        return rc;
    if (v[1] && *v[1]) {
        (void)snprintf(ref, sizeof(ref), "%s.user", field);
        if ((rc = find_named(p, root, "users", "user", v[1], ref, user)) < 0)
            return rc;
    }
    cfg->namespace = util_xstrdup(v[2] && *v[2] ? v[2] : "default");
    return 0;
}

/* clusters[name].cluster: server, TLS verification. */
static int parse_cluster(struct kcparse *p, yaml_node_t *cluster, const char *name,
                         struct kube_config *cfg)
{
    static const char *const keys[] = {"server", "certificate-authority",
                                       "certificate-authority-data", "insecure-skip-tls-verify",
                                       NULL};
    const char *v[4];
    char field[512];
    (void)snprintf(field, sizeof(field), "clusters[%s].cluster", name);
    int rc = get_strs(p, cluster, field, keys, v);
    if (rc < 0)
        return rc;
    const char *server = v[0];
    if (!server || !*server)
        return fail(p, -EINVAL, "%s.server: missing", field);
    if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
        return fail(p, -EINVAL, "%s.server: \"%s\" is not an http(s) URL", field, server);
    size_t sl = strlen(server);
    while (sl > 0 && server[sl - 1] == '/')
        sl--;
    cfg->server = util_xstrndup(server, sl);
    cfg->insecure_skip_tls_verify = parse_bool(v[3]);
    return data_or_file(p, field, "certificate-authority", v[2], v[1], &cfg->ca_data,
                        &cfg->ca_file);
}

/* users[name].user: a token, a token file and/or a client certificate; credential plugins and
 * basic authentication are refused by name. */
static int parse_user(struct kcparse *p, yaml_node_t *user, const char *name,
                      struct kube_config *cfg)
{
    static const char *const keys[] = {"token",
                                       "tokenFile",
                                       "client-certificate",
                                       "client-certificate-data",
                                       "client-key",
                                       "client-key-data",
                                       NULL};
    const char *v[6];
    char field[512], sub[600];
    (void)snprintf(field, sizeof(field), "users[%s].user", name);
    int rc = get_strs(p, user, field, keys, v);
    if (rc < 0)
        return rc;
    if (v[0])
        cfg->token = util_xstrdup(v[0]);
    if (v[1]) {
        (void)snprintf(sub, sizeof(sub), "%s.tokenFile", field);
        if ((rc = file_field(p, v[1], sub, &cfg->token_file)) < 0)
            return rc;
    }
    if ((rc = data_or_file(p, field, "client-certificate", v[3], v[2], &cfg->cert_data,
                           &cfg->cert_file)) < 0 ||
        (rc = data_or_file(p, field, "client-key", v[5], v[4], &cfg->key_data, &cfg->key_file)) < 0)
        return rc;
    bool has_cert = cfg->cert_data || cfg->cert_file, has_key = cfg->key_data || cfg->key_file;
    if (has_cert != has_key)
        return fail(p, -EINVAL, "%s.%s: missing (client-certificate and client-key go together)",
                    field, has_cert ? "client-key" : "client-certificate");
    if (!cfg->token && !cfg->token_file && !has_cert) {
        if (map_get(p, user, "exec"))
            return fail(p, -ENOTSUP, "%s.exec: exec credential plugins are not supported", field);
        if (map_get(p, user, "auth-provider"))
            return fail(p, -ENOTSUP, "%s.auth-provider: auth providers are not supported", field);
        if (map_get(p, user, "username") || map_get(p, user, "password"))
            return fail(p, -ENOTSUP, "%s.username: basic authentication is not supported", field);
    }
    return 0;
}

static int parse_tree(struct kcparse *p, const char *context, struct kube_config *cfg)
{
    yaml_node_t *root = yaml_document_get_root_node(&p->doc);
    if (!root)
        return fail(p, -EINVAL, "empty document");
    if (root->type != YAML_MAPPING_NODE)
        return fail(p, -EINVAL, "expected a mapping at the top level");
    yaml_node_t *cluster = NULL, *user = NULL;
    const char *cluster_name = NULL, *user_name = NULL;
    int rc = parse_context(p, root, context, cfg, &cluster, &cluster_name, &user, &user_name);
    if (rc < 0)
        return rc;
    if ((rc = parse_cluster(p, cluster, cluster_name, cfg)) < 0)
        return rc;
    return user ? parse_user(p, user, user_name, cfg) : 0;
}

static int config_parse(const char *yaml, size_t len, const char *name, const char *dir,
                        const char *context, struct kube_config **out, char *err, size_t errlen)
{
    struct kcparse p = {
        .name = name ? name : "kubeconfig", .dir = dir, .err = err, .errlen = errlen};
    yaml_parser_t parser;
    int rc;
    *out = NULL;
    if (!yaml_parser_initialize(&parser))
        util_oom(sizeof(parser)); /* it fails only for memory */
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    if (!yaml_parser_load(&parser, &p.doc)) {
        rc = fail(&p, -EINVAL, "line %lu column %lu: %s",
                  (unsigned long)parser.problem_mark.line + 1,
                  (unsigned long)parser.problem_mark.column + 1,
                  parser.problem ? parser.problem : "malformed YAML");
        yaml_parser_delete(&parser);
        return rc;
    }
    yaml_parser_delete(&parser);
    struct kube_config *cfg = util_xcalloc(1, sizeof(*cfg));
    cfg->source = util_xstrdup(p.name);
    rc = parse_tree(&p, context, cfg);
    yaml_document_delete(&p.doc);
    if (rc < 0) {
        kube_config_free(cfg);
        return rc;
    }
    *out = cfg;
    return 0;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    if (slash == path)
        return util_xstrdup("/");
    return util_xstrndup(path, (size_t)(slash - path));
}

int kube_config_from_yaml(const char *yaml, size_t len, const char *name, const char *context,
                          struct kube_config **out, char *err, size_t errlen)
{
    if (!yaml || !out)
        return -EINVAL;
    char *dir = name ? dir_of(name) : NULL;
    int rc = config_parse(yaml, len, name, dir, context, out, err, errlen);
    free(dir);
    return rc;
}

/* Reads a whole (small) file; NUL-terminated. */
static int read_file(const char *path, size_t max, char **out, size_t *outlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 4096, n = 0;
    char *b = util_xmalloc(cap);
    int rc = 0;
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max) {
                rc = -EFBIG;
                break;
            }
            cap *= 2;
            b = util_xrealloc(b, cap);
        }
        size_t r = fread(b + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) {
            if (ferror(f))
                rc = -EIO;
            break;
        }
    }
    (void)fclose(f);
    if (rc < 0 || n > max) {
        free(b);
        return rc < 0 ? rc : -EFBIG;
    }
    b[n] = '\0';
    *out = b;
    if (outlen)
        *outlen = n;
    return 0;
}

static char *default_kubeconfig_path(void)
{
    const char *env = getenv("KUBECONFIG");
    if (env && *env) {
        const char *colon = strchr(env, ':');
        return colon ? util_xstrndup(env, (size_t)(colon - env)) : util_xstrdup(env);
    }
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + sizeof("/.kube/config");
    char *p = util_xmalloc(n);
    (void)snprintf(p, n, "%s/.kube/config", home);
    return p;
}

int kube_config_from_file(const char *path, const char *context, struct kube_config **out,
                          char *err, size_t errlen)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    char *p = path ? util_xstrdup(path) : default_kubeconfig_path();
    if (!p) {
        set_err(err, errlen, "kubeconfig: no path given, $KUBECONFIG and $HOME unset");
        return -ENOENT;
    }
    char *data = NULL, *dir = NULL;
    size_t len = 0;
    int rc = read_file(p, MAX_CONFIG_FILE, &data, &len);
    if (rc < 0) {
        set_err(err, errlen, "%s: %s", p, strerror(-rc));
        goto out;
    }
    dir = dir_of(p);
    rc = config_parse(data, len, p, dir, context, out, err, errlen);
out:
    free(data);
    free(dir);
    free(p);
    return rc;
}

int kube__read_trimmed(const char *path, char **out)
{
    size_t n = 0;
    int rc = read_file(path, 1u << 20, out, &n);
    if (rc < 0)
        return rc;
    while (n > 0 && ((*out)[n - 1] == '\n' || (*out)[n - 1] == '\r' || (*out)[n - 1] == ' ' ||
                     (*out)[n - 1] == '\t'))
        (*out)[--n] = '\0';
    return 0;
}

int kube_config_in_cluster(const char *root, struct kube_config **out, char *err, size_t errlen)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!root)
        root = SA_ROOT;
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port) {
        set_err(err, errlen,
                "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
        return -ENOENT;
    }
    for (const char *c = port; *c; c++) {
        if (*c < '0' || *c > '9') {
            set_err(err, errlen, "in-cluster: KUBERNETES_SERVICE_PORT: \"%s\" is not a port", port);
            return -EINVAL;
        }
    }
    struct kube_config *cfg = util_xcalloc(1, sizeof(*cfg));
    int rc;
    char path[PATH_MAX];
    size_t n = strlen(host) + strlen(port) + 16;
    cfg->server = util_xmalloc(n);
    if (strchr(host, ':') && host[0] != '[')
        (void)snprintf(cfg->server, n, "https://[%s]:%s", host, port);
    else
        (void)snprintf(cfg->server, n, "https://%s:%s", host, port);
    cfg->source = util_xstrdup("in-cluster");
    cfg->context = util_xstrdup("in-cluster");

    (void)snprintf(path, sizeof(path), "%s/token", root);
    if ((rc = kube__read_trimmed(path, &cfg->token)) < 0) {
        set_err(err, errlen, "in-cluster: %s: %s", path, strerror(-rc));
        goto out;
    }
    cfg->token_file = util_xstrdup(path);
    (void)snprintf(path, sizeof(path), "%s/ca.crt", root);
    if (access(path, R_OK) != 0) {
        rc = -errno;
        set_err(err, errlen, "in-cluster: %s: %s", path, strerror(-rc));
        goto out;
    }
    cfg->ca_file = util_xstrdup(path);
    (void)snprintf(path, sizeof(path), "%s/namespace", root);
    if (kube__read_trimmed(path, &cfg->namespace) < 0 || !cfg->namespace[0]) {
        free(cfg->namespace);
        cfg->namespace = util_xstrdup("default");
    }
    rc = 0;
out:
    if (rc < 0)
        kube_config_free(cfg);
    else
        *out = cfg;
    return rc;
}

int kube_config_load(const char *path, const char *context, struct kube_config **out, char *err,
                     size_t errlen)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *kc = getenv("KUBECONFIG");
    if (!path && !context && (!kc || !*kc) && host && *host)
        return kube_config_in_cluster(NULL, out, err, errlen);
    return kube_config_from_file(path, context, out, err, errlen);
}

static void free_secret(char *s)
{
    if (!s)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}

void kube_config_free(struct kube_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->server);
    free(cfg->namespace);
    free_secret(cfg->token);
    free(cfg->token_file);
    free(cfg->ca_file);
    free(cfg->ca_data);
    free(cfg->cert_file);
    free(cfg->key_file);
    free(cfg->cert_data);
    free_secret(cfg->key_data);
    free(cfg->source);
    free(cfg->context);
    free(cfg);
}
