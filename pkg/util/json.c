/* cJSON path reads and member setters (json.h). */
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void util_json_init(void)
{
    cJSON_Hooks hooks = {.malloc_fn = util_xmalloc, .free_fn = free};
    cJSON_InitHooks(&hooks);
}

const cJSON *util_jget(const cJSON *o, const char *path)
{
    char key[128];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        p += n + (dot ? 1 : 0);
    }
    return o;
}

const char *util_jstr(const cJSON *o, const char *path)
{
    const cJSON *v = util_jget(o, path);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *util_jkey(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return v && cJSON_IsString(v) ? v->valuestring : NULL;
}

double util_jnum(const cJSON *o, const char *path, double def)
{
    const cJSON *v = util_jget(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

void util_jset(cJSON *o, const char *k, cJSON *v)
{
    util_must(v);
    if (cJSON_GetObjectItemCaseSensitive(o, k))
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, v);
    else
        cJSON_AddItemToObject(o, k, v);
}

void util_jset_str(cJSON *o, const char *k, const char *v)
{
    util_jset(o, k, cJSON_CreateString(v));
}

void util_jset_num(cJSON *o, const char *k, double v)
{
    util_jset(o, k, cJSON_CreateNumber(v));
}

void util_jkeep_if(cJSON *o, bool (*keep)(const char *key, void *ctx), void *ctx)
{
    if (!cJSON_IsObject(o))
        return;
    cJSON *it = o->child;
    while (it) {
        cJSON *next = it->next;
        if (!it->string || !keep(it->string, ctx))
            cJSON_Delete(cJSON_DetachItemViaPointer(o, it));
        it = next;
    }
}

static bool in_list(const char *key, void *ctx)
{
    for (const char *const *k = ctx; *k; k++)
        if (strcmp(key, *k) == 0)
            return true;
    return false;
}

void util_jkeep_keys(cJSON *o, const char *const *keys)
{
    util_jkeep_if(o, in_list, (void *)keys);
}

void util_fmt_double(char *out, size_t len, double v)
{
    if (!isfinite(v)) {
        (void)snprintf(out, len, "null");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
        (void)snprintf(out, len, "%.0f", v == 0 ? 0.0 : v); /* no "-0" */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        (void)snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

double util_round_digits(double v, int digits)
{
    char b[40];
    if (!isfinite(v))
        return v;
    (void)snprintf(b, sizeof(b), "%.*g", digits, v);
    return strtod(b, NULL);
}

void util_jround(cJSON *o, int digits)
{
    if (!o)
        return;
    if (cJSON_IsNumber(o)) {
        cJSON_SetNumberValue(o, util_round_digits(o->valuedouble, digits));
        return;
    }
    for (cJSON *c = o->child; c; c = c->next)
        util_jround(c, digits);
}

static int json_print(struct buf *out, const cJSON *v, int depth)
{
    char num[40];
    if (cJSON_IsNumber(v)) {
        util_fmt_double(num, sizeof(num), v->valuedouble);
        return buf_puts(out, num);
    }
    if (cJSON_IsString(v))
        return buf_json_string(out, v->valuestring);
    if (cJSON_IsBool(v))
        return buf_puts(out, cJSON_IsTrue(v) ? "true" : "false");
    bool obj = cJSON_IsObject(v);
    if (!obj && !cJSON_IsArray(v))
        return buf_puts(out, "null");
    if (!v->child)
        return buf_puts(out, obj ? "{}" : "[]");
    int rc = buf_puts(out, obj ? "{\n" : "[\n");
    for (const cJSON *c = v->child; c && !rc; c = c->next) {
        rc = buf_printf(out, "%*s", 2 * (depth + 1), "");
        if (!rc && obj) {
            rc = buf_json_string(out, c->string ? c->string : "");
            rc = rc ? rc : buf_puts(out, ": ");
        }
        rc = rc ? rc : json_print(out, c, depth + 1);
        rc = rc ? rc : buf_puts(out, c->next ? ",\n" : "\n");
    }
    rc = rc ? rc : buf_printf(out, "%*s", 2 * depth, "");
    return rc ? rc : buf_puts(out, obj ? "}" : "]");
}

int util_json_print(struct buf *out, const cJSON *v)
{
    int rc = json_print(out, v, 0);
    return rc ? rc : buf_puts(out, "\n");
}
