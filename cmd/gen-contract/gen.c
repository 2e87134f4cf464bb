/* What pgbench-gen-contract prints (see gen.h). */
#include "cmd/gen-contract/gen.h"
#include "pkg/bench/verdict.h"
#include "pkg/util/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {
    [BF_SECTION] = "object",
    [BF_NUM] = "number",
    [BF_INT] = "integer",
    [BF_BOOL] = "boolean",
    [BF_STR] = "string",
    [BF_TIME] = "time",
    [BF_NUMMAP] = "map",
    [BF_OBJECT] = "object",
    [BF_LIST] = "list",
    [BF_NUMLIST] = "numbers",
    [BF_STRLIST] = "strings",
    [BF_PHASE] = "phase",
    [BF_INTSTR] = "time or integer",
    [BF_CONDITIONS] = "conditions",
    [BF_INTERVAL] = "interval",
};

const struct gen_table gen_run = {bench_fields, BK__COUNT, api_run_phases, API_RUN_NPHASES};
const struct gen_table gen_sweep = {bench_sweep_fields, BSW__COUNT, api_sweep_phases,
                                    API_SWEEP_NPHASES};

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

/* status.conditions: metav1.Condition's schema, as Kubernetes' own types declare it. */
static void schema_conditions(int ind)
{
    static const char *const lines[] = {
        "type: array",
        "x-kubernetes-list-type: map",
        "x-kubernetes-list-map-keys: [type]",
        "items:",
        "  type: object",
        "  required: [type, status]",
        "  properties:",
        "    type:",
        "      description: \"The condition's type.\"",
        "      type: string",
        "      maxLength: 316",
        "    status:",
        "      description: \"True, False or Unknown.\"",
        "      type: string",
        "      enum: [\"True\", \"False\", \"Unknown\"]",
        "    reason:",
        "      description: \"A CamelCase reason, e.g. InvalidSpec or WorkerFailed.\"",
        "      type: string",
        "      maxLength: 1024",
        "    message:",
        "      description: \"What happened, naming the field, the pod or the error.\"",
        "      type: string",
        "      maxLength: 32768",
        "    lastTransitionTime:",
        "      description: \"When status last changed (RFC 3339).\"",
        "      type: string",
        "      format: date-time",
        "    observedGeneration:",
        "      description: \"The spec generation the condition was set for.\"",
        "      type: integer",
        "      format: int64",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        printf("%*s%s\n", ind, "", lines[i]);
}

static void schema_phase(const struct gen_table *t, int ind)
{
    printf("%*stype: string\n%*senum: [", ind, "", ind, "");
    for (size_t i = 0; i < t->nphases; i++)
        printf("%s%s", i ? ", " : "", api_phase_name(t->phases[i]));
    printf("]\n");
}

/* The schema of a list, a map or an object (sections) under ind. */
static void schema_group(const struct gen_table *t, int ind, const struct bench_field *f)
{
    switch (f->type) {
    case BF_SECTION:
    case BF_OBJECT:
        printf("%*stype: object\n", ind, "");
        description(ind, f);
        if (f->type == BF_OBJECT)
            printf("%*sx-kubernetes-preserve-unknown-fields: true\n", ind, "");
        printf("%*sproperties:\n", ind, "");
        gen_schema_children(t, ind + 2, f->status);
        break;
    case BF_LIST:
        printf("%*stype: array\n", ind, "");
        description(ind, f);
        printf("%*smaxItems: %d\n", ind, "", f->max_items);
        printf("%*sitems:\n%*stype: object\n%*sproperties:\n", ind, "", ind + 2, "", ind + 2, "");
        gen_schema_children(t, ind + 4, f->status);
        break;
    case BF_NUMMAP:
        printf("%*stype: object\n", ind, "");
        description(ind, f);
        printf("%*sadditionalProperties: {type: number}\n", ind, "");
        break;
    case BF_NUMLIST:
    case BF_STRLIST:
    case BF_INTERVAL:
        printf("%*stype: array\n", ind, "");
        description(ind, f);
        if (f->max_items)
            printf("%*smaxItems: %d\n", ind, "", f->max_items);
        printf("%*sitems: {type: %s%s}\n", ind, "", f->type == BF_STRLIST ? "string" : "number",
               f->type == BF_INTERVAL ? ", nullable: true" : "");
        break;
    default:
        break;
    }
}

static void schema_node(const struct gen_table *t, int ind, const struct bench_field *f,
                        const char *key)
{
    printf("%*s%s:\n", ind, "", key);
    ind += 2;
    switch (f->type) {
    case BF_SECTION:
    case BF_OBJECT:
    case BF_LIST:
    case BF_NUMMAP:
    case BF_NUMLIST:
    case BF_STRLIST:
    case BF_INTERVAL:
        schema_group(t, ind, f);
        break;
    case BF_PHASE:
        schema_phase(t, ind);
        description(ind, f);
        break;
    case BF_CONDITIONS:
        description(ind, f);
        schema_conditions(ind);
        break;
    case BF_INTSTR:
        printf("%*sx-kubernetes-int-or-string: true\n%*snullable: true\n", ind, "", ind, "");
        description(ind, f);
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

void gen_schema_children(const struct gen_table *t, int ind, const char *parent)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct bench_field *f = &t->rows[i];
        const char *key = f->status ? child_of(f->status, parent) : NULL;
        if (key)
            schema_node(t, ind, f, key);
    }
}

void gen_crd_columns(const struct bench_column *cols, size_t n, int ind)
{
    for (size_t i = 0; i < n; i++) {
        const struct bench_column *c = &cols[i];
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

void gen_docs_result(void)
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

static unsigned read_of(size_t i);

/* Who reads a status field back (enum bench_read): "running, ended, sweep". */
static void read_cell(unsigned read)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {{RB_LIVE, "running"}, {RB_DONE, "ended"}, {RB_SWEEP, "sweep"}};
    const char *sep = "";
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (read & names[i].flag) {
            printf("%s%s", sep, names[i].name);
            sep = ", ";
        }
}

void gen_docs_status(const struct gen_table *t)
{
    printf("| status field | type | unit | present | read back | description |\n");
    printf("| --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < t->n; i++) {
        const struct bench_field *f = &t->rows[i];
        if (!f->status)
            continue;
        printf("| `%s` | %s | %s | %s | ", f->status, type_names[f->type], f->unit ? f->unit : "",
               presence_names[f->presence]);
        read_cell(t == &gen_run ? read_of(i) : f->read);
        printf(" | ");
        md_cell(f->description);
        if (f->path && strcmp(f->path, f->status) != 0) {
            printf(" From the result's `");
            md_cell(f->path);
            printf("`.");
        }
        printf(" |\n");
    }
}

/* ---- cache keep-lists ------------------------------------------------------------------------ */

/* The status path a keep-list holds for row f: its path up to its first list (a list is kept
 * whole). Into out. */
static void keep_path(const struct bench_field *f, char *out, size_t len)
{
    size_t n = strcspn(f->status, "[");
    (void)snprintf(out, len, "%.*s", (int)n, f->status);
}

/* p is q, or below it ("summary.tps" below "summary"). */
static bool at_or_below(const char *p, const char *q)
{
    size_t n = strlen(q);
    return strncmp(p, q, n) == 0 && (p[n] == '\0' || p[n] == '.');
}

/* Who reads run status row i back: its read column, and the sweep controller when a sweep row
 * copies it into a run's entry (sweep_fields.def's from column). */
static unsigned read_of(size_t i)
{
    unsigned r = bench_fields[i].read;
    for (size_t k = 0; k < bench_sweep_nfields; k++)
        if (bench_sweep_fields[k].from == (int)i)
            r |= RB_SWEEP;
    return r;
}

/* Whether another row read by flag holds a path that contains row i's (so row i adds nothing),
 * or an earlier row the same path. */
static bool keep_covered(unsigned flag, size_t i)
{
    char p[256], q[256];
    keep_path(&bench_fields[i], p, sizeof(p));
    for (size_t j = 0; j < bench_nfields; j++) {
        const struct bench_field *g = &bench_fields[j];
        if (j == i || !g->status || !(read_of(j) & flag))
            continue;
        keep_path(g, q, sizeof(q));
        if ((strcmp(p, q) == 0 && j < i) || (strcmp(p, q) != 0 && at_or_below(p, q)))
            return true;
    }
    return false;
}

static void keep_list(const char *name, unsigned flag, const char *what)
{
    printf("\n/* %s */\nstatic const char *const %s[] = {\n", what, name);
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        char p[256];
        if (!f->status || !(read_of(i) & flag) || keep_covered(flag, i))
            continue;
        keep_path(f, p, sizeof(p));
        printf("    \"%s\",\n", p);
    }
    printf("    NULL,\n};\n");
}

void gen_cache_keep(void)
{
    printf("/* pkg/controller/cache_keep.h: the status paths the controllers read back from their "
           "caches,\n * from the read-back column of pkg/bench/fields.def (util_jkeep_paths keeps "
           "them). Generated\n * by scripts/generate.sh (make generate); do not edit. Included "
           "by pkg/controller/cache.c. */\n");
    printf("#ifndef PGBO_CONTROLLER_CACHE_KEEP_H\n#define PGBO_CONTROLLER_CACHE_KEEP_H\n");
    printf("/* clang-format off */\n"); /* one path a line, as generated */
    keep_list("ctrl_keep_run_live", RB_LIVE, "a BenchmarkRun that has not ended (RB_LIVE)");
    keep_list("ctrl_keep_run_done", RB_DONE, "a BenchmarkRun that has ended (RB_DONE)");
    keep_list("ctrl_keep_sweep_run", RB_SWEEP,
              "a BenchmarkRun of a sweep, in the sweep controller's cache (RB_SWEEP)");
    printf("/* clang-format on */\n\n#endif\n");
}

/* The verdict's tables: classes, wait events, limit rules, pitfalls, evidence. */
void gen_docs_verdict(void)
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

void gen_json(const struct gen_table *t)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < t->n; i++) {
        const struct bench_field *f = &t->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(a, o);
        if (f->path)
            util_jset_str(o, "path", f->path);
        if (f->status)
            util_jset_str(o, "status", f->status);
        util_jset_str(o, "type", type_names[f->type]);
        util_jset_str(o, "presence", presence_names[f->presence]);
        if (f->max_items)
            util_jset_num(o, "maxItems", f->max_items);
        if (f->from >= 0) /* a sweep run entry's copy: the run's status path */
            util_jset_str(o, "from", bench_fields[f->from].status);
    }
    char *s = cJSON_Print(a);
    cJSON_Delete(a);
    puts(s);
    free(s);
}
