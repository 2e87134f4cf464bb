/* pgbench-gen-contract: prints what is generated from the result contract table
 * (pkg/bench/fields.c). scripts/generate.sh splices its output into the CRD and the docs.
 *
 *   pgbench-gen-contract crd-status INDENT   status properties of the CRD (YAML)
 *   pgbench-gen-contract crd-columns INDENT  additionalPrinterColumns (YAML)
 *   pgbench-gen-contract docs-result         field tables for docs/result-schema.md
 *   pgbench-gen-contract docs-status         the result rows of docs/spec.md's status table
 *   pgbench-gen-contract docs-verdict        the verdict's rules for docs/troubleshooting.md
 *                                            (pkg/bench/verdict.def)
 *   pgbench-gen-contract json                the table as JSON (for tests)
 */
#include "pkg/bench/fields.h"
#include "pkg/bench/verdict.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {
    [BF_SECTION] = "object",  [BF_NUM] = "number",      [BF_INT] = "integer",
    [BF_BOOL] = "boolean",    [BF_STR] = "string",      [BF_TIME] = "time",
    [BF_NUMMAP] = "map",      [BF_OBJECT] = "object",   [BF_LIST] = "list",
    [BF_NUMLIST] = "numbers", [BF_STRLIST] = "strings",
};

static const char *const merge_names[] = {
    [BM_NONE] = "",
    [BM_FIRST] = "first worker's",
    [BM_SUM] = "sum",
    [BM_MAX] = "max",
    [BM_MIN] = "min",
    [BM_ALL] = "all (AND)",
    [BM_ANY] = "any (OR)",
    [BM_TXMEAN] = "transaction-weighted mean",
    [BM_POOLED] = "pooled",
    [BM_HIST] = "merged histogram",
    [BM_RECOMPUTE] = "recomputed",
    [BM_BYKEY] = "items matched by key",
    [BM_CONCAT] = "concatenated",
    [BM_WINDOW] = "common window",
};

static const char *const presence_names[] = {
    [BP_OPTIONAL] = "optional",
    [BP_ALWAYS] = "always",
    [BP_DIAG] = "diagnostics",
    [BP_NONZERO] = "when not 0",
};

/* ---- CRD status schema ---------------------------------------------------------------- */

/* Status path of f relative to parent ("" = top): the rest after "parent." or "parent[].", or
 * NULL when f is not directly below parent. */
static const char *child_of(const char *status, const char *parent)
{
    size_t n = strlen(parent);
    const char *rest;
    if (n == 0)
        rest = status;
    else if (strncmp(status, parent, n) == 0 && status[n] == '.')
        rest = status + n + 1;
    else if (strncmp(status, parent, n) == 0 && strncmp(status + n, "[].", 3) == 0)
        rest = status + n + 3;
    else
        return NULL;
    return strchr(rest, '.') || strstr(rest, "[]") ? NULL : rest;
}

/* YAML double-quoted scalar. */
static void yq(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void description(int ind, const struct bench_field *f)
{
    printf("%*sdescription: ", ind, "");
    if (f->unit && strcmp(f->unit, "count") != 0) {
        char buf[2048];
        (void)snprintf(buf, sizeof(buf), "%s Unit: %s.", f->description, f->unit);
        yq(buf);
    } else {
        yq(f->description);
    }
    putchar('\n');
}

static void schema_children(int ind, const char *parent);

static void schema_node(int ind, const struct bench_field *f, const char *key)
{
    printf("%*s%s:\n", ind, "", key);
    ind += 2;
    switch (f->type) {
    case BF_SECTION:
    case BF_OBJECT:
        printf("%*stype: object\n", ind, "");
        description(ind, f);
        if (f->type == BF_OBJECT)
            printf("%*sx-kubernetes-preserve-unknown-fields: true\n", ind, "");
        printf("%*sproperties:\n", ind, "");
        schema_children(ind + 2, f->status);
        break;
    case BF_LIST:
        printf("%*stype: array\n", ind, "");
        description(ind, f);
        printf("%*smaxItems: %d\n", ind, "", f->max_items);
        printf("%*sitems:\n%*stype: object\n%*sproperties:\n", ind, "", ind + 2, "", ind + 2, "");
        schema_children(ind + 4, f->status);
        break;
    case BF_NUMMAP:
        printf("%*stype: object\n", ind, "");
        description(ind, f);
        printf("%*sadditionalProperties: {type: number}\n", ind, "");
        break;
    case BF_NUMLIST:
    case BF_STRLIST:
        printf("%*stype: array\n", ind, "");
        description(ind, f);
        if (f->max_items)
            printf("%*smaxItems: %d\n", ind, "", f->max_items);
        printf("%*sitems: {type: %s}\n", ind, "", f->type == BF_NUMLIST ? "number" : "string");
        break;
    case BF_INT:
        printf("%*stype: integer\n%*sformat: int64\n%*snullable: true\n", ind, "", ind, "", ind,
               "");
        description(ind, f);
        break;
    case BF_TIME:
        printf("%*stype: string\n%*sformat: date-time\n%*snullable: true\n", ind, "", ind, "", ind,
               "");
        description(ind, f);
        break;
    default:
        printf("%*stype: %s\n%*snullable: true\n", ind, "", type_names[f->type], ind, "");
        description(ind, f);
    }
}

static void schema_children(int ind, const char *parent)
{
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        const char *key = f->status ? child_of(f->status, parent) : NULL;
        if (key)
            schema_node(ind, f, key);
    }
}

static void crd_columns(int ind)
{
    for (size_t i = 0; i < bench_ncolumns; i++) {
        const struct bench_column *c = &bench_columns[i];
        printf("%*s- name: %s\n", ind, "", c->name);
        printf("%*s  type: %s\n", ind, "", c->type);
        printf("%*s  jsonPath: %s\n", ind, "", c->json_path);
        if (c->description) {
            printf("%*s  description: ", ind, "");
            yq(c->description);
            putchar('\n');
        }
        if (c->priority)
            printf("%*s  priority: %d\n", ind, "", c->priority);
    }
}

/* ---- docs ------------------------------------------------------------------------------ */

static void md_cell(const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

static void docs_result(void)
{
    const char *section = NULL;
    size_t seclen = 0;
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        if (!f->path)
            continue;
        size_t n = strcspn(f->path, ".[");
        bool top = !f->path[n];
        const char *sec = top && f->type != BF_SECTION && f->type != BF_LIST ? "" : f->path;
        size_t sl = top && f->type != BF_SECTION && f->type != BF_LIST ? 0 : n;
        if (!section || sl != seclen || strncmp(sec, section, sl) != 0) {
            section = sec;
            seclen = sl;
            if (sl)
                printf("\n### `%.*s`\n\n", (int)sl, sec);
            else
                printf("\n### Top level\n\n");
            printf("| field | type | unit | merged as | compact | status | description |\n");
            printf("| --- | --- | --- | --- | --- | --- | --- |\n");
        }
        printf("| `%s` | %s | %s | %s | %s | ", f->path, type_names[f->type],
               f->unit ? f->unit : "", merge_names[f->merge], f->compact ? "yes" : "");
        if (f->status)
            printf("`%s`", f->status);
        printf(" | ");
        md_cell(f->description);
        printf(" |\n");
    }
}

static void docs_status(void)
{
    printf("| status field | type | unit | present | description |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        if (!f->status)
            continue;
        printf("| `%s` | %s | %s | %s | ", f->status, type_names[f->type], f->unit ? f->unit : "",
               presence_names[f->presence]);
        md_cell(f->description);
        if (f->path && strcmp(f->path, f->status) != 0) {
            printf(" From the result's `");
            md_cell(f->path);
            printf("`.");
        }
        printf(" |\n");
    }
}

/* The verdict's tables: classes, wait events, limit rules, pitfalls, evidence. */
static void docs_verdict(void)
{
    printf("| class | names | next thing to try |\n| --- | --- | --- |\n");
    for (int c = 0; c < BENCH_VC__COUNT; c++) {
        printf("| `%s` | ", bench_verdict_classes[c].name);
        md_cell(bench_verdict_classes[c].label);
        printf(" | ");
        md_cell(bench_verdict_classes[c].fix);
        printf(" |\n");
    }
    printf("\nWait events by class (the first matching row wins; `Client:*` is the time the "
           "server waited for pgbench, decided between the client and the network by the rules; "
           "events no row names are the database's other time):\n\n");
    printf("| wait event | class |\n| --- | --- |\n");
    for (size_t i = 0; i < bench_verdict_nwaits; i++)
        printf("| `%s` | `%s` |\n", bench_verdict_waits[i].pattern,
               bench_verdict_classes[bench_verdict_waits[i].cls].name);
    printf("\nLimit rules, in table order. Of those whose condition holds, the one with the "
           "largest score decides; rules without a score come first. A condition on a number "
           "that was not measured is false.\n\n");
    printf("| rule | class | condition | T | score | evidence in the sentence |\n"
           "| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < BENCH_LR__COUNT; i++) {
        const struct bench_verdict_limit_row *l = &bench_verdict_limits[i];
        printf("| `%s` | `%s` | `", l->id, bench_verdict_classes[l->cls].name);
        md_cell(l->condition);
        printf("` | %g | %s | ", l->threshold,
               l->score >= 0 ? bench_verdict_evidence[l->score].key : "first");
        md_cell(l->evidence);
        printf(" |\n");
    }
    printf("\nPitfalls, named as warnings with their fix whatever the class:\n\n");
    printf("| warning | condition | T | says | fix |\n| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < BENCH_WR__COUNT; i++) {
        const struct bench_verdict_warn_row *w = &bench_verdict_warns[i];
        printf("| `%s` | `", w->id);
        md_cell(w->condition);
        printf("` | %g | ", w->threshold);
        md_cell(w->sentence);
        printf(" | ");
        md_cell(w->fix);
        printf(" |\n");
    }
    printf("\n`kubectl pgbench compare` names, for each run against the first, the class whose "
           "share grew most in the slower run (by 10 points or more) and these counters where "
           "they changed by more than 10 %%:\n\n| class | counter |\n| --- | --- |\n");
#define MOVES(cls, ev)                                                                             \
    printf("| `%s` | `%s` |\n", bench_verdict_classes[BENCH_VC_##cls].name,                        \
           bench_verdict_evidence[BENCH_EV_##ev].key);
#include "pkg/bench/verdict.def"
    printf("\nEvidence (`E(...)` in the conditions; the result's `verdict.evidence` keys):\n\n");
    printf("| id | key | unit | what | measured by |\n| --- | --- | --- | --- | --- |\n");
#define EVIDENCE(id, key, unit, desc, how)                                                         \
    printf("| `%s` | `%s` | %s | ", #id, key, (unit) ? (unit) : "");                               \
    md_cell(desc);                                                                                 \
    printf(" | ");                                                                                 \
    md_cell(how);                                                                                  \
    printf(" |\n");
#include "pkg/bench/verdict.def"
}

static void json(void)
{
    cJSON *a = util_must(cJSON_CreateArray());
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        cJSON *o = util_must(cJSON_CreateObject());
        cJSON_AddItemToArray(a, o);
        if (f->path)
            util_jset_str(o, "path", f->path);
        if (f->status)
            util_jset_str(o, "status", f->status);
        util_jset_str(o, "type", type_names[f->type]);
        util_jset_str(o, "presence", presence_names[f->presence]);
        if (f->max_items)
            util_jset_num(o, "maxItems", f->max_items);
    }
    char *s = util_must(cJSON_Print(a));
    cJSON_Delete(a);
    puts(s);
    free(s);
}

int main(int argc, char **argv)
{
    util_json_init(); /* first: every cJSON call after it is total (json.h) */
    const char *what = argc > 1 ? argv[1] : "";
    int ind = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(what, "crd-status") == 0)
        schema_children(ind, "");
    else if (strcmp(what, "crd-columns") == 0)
        crd_columns(ind);
    else if (strcmp(what, "docs-result") == 0)
        docs_result();
    else if (strcmp(what, "docs-status") == 0)
        docs_status();
    else if (strcmp(what, "docs-verdict") == 0)
        docs_verdict();
    else if (strcmp(what, "json") == 0)
        json();
    else {
        (void)fprintf(stderr, "usage: pgbench-gen-contract crd-status INDENT | crd-columns INDENT "
                              "| docs-result | docs-status | docs-verdict | json\n");
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
