/* The contract generator (cmd/gen-contract/gen.c): what it prints from the status tables. The
 * expectations are read off the rows another way (paths walked segment by segment, the keep-lists
 * checked by applying them to a status), not by calling the generator's own helpers. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/gen-contract/gen.h"
#include "pkg/api/status.h"
#include "pkg/api/sweep_spec.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

/* What fn(t, arg) prints on stdout, as a string the caller frees. */
static char *capture(void (*fn)(const struct gen_table *, int), const struct gen_table *t, int arg)
{
    char path[] = "/tmp/test_gen.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    (void)fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0 && dup2(fd, STDOUT_FILENO) >= 0);
    fn(t, arg);
    (void)fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    (void)close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    char *s = util_xcalloc(1, (size_t)n + 1);
    assert_true(pread(fd, s, (size_t)n, 0) == n);
    (void)close(fd);
    (void)unlink(path);
    return s;
}

static void schema(const struct gen_table *t, int ind)
{
    gen_schema_children(t, ind, "");
}

static void docs(const struct gen_table *t, int unused)
{
    (void)unused;
    gen_docs_status(t);
}

static void keep(const struct gen_table *t, int unused)
{
    (void)t;
    (void)unused;
    gen_cache_keep();
}

/* The line index (0-based) in text where "<ind spaces>key:" starts at or after from; -1. */
static int find_key(const char *text, int ind, const char *key, int from, const char **at)
{
    char want[200];
    (void)snprintf(want, sizeof(want), "%*s%s:", ind, "", key);
    int line = 0;
    for (const char *p = text; *p; line++) {
        const char *nl = strchr(p, '\n');
        if (line >= from && strncmp(p, want, strlen(want)) == 0) {
            *at = p;
            return line;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return -1;
}

/* Every sweep row is in the schema at the indentation its path says, below its parent: each
 * segment of the path is found after the previous one, four more spaces in (key, properties), and
 * through "x[]" six more (key, items, properties). */
static void test_sweep_schema_has_every_row(void **state)
{
    (void)state;
    char *y = capture(schema, &gen_sweep, 16);
    for (size_t i = 0; i < gen_sweep.n; i++) {
        const char *path = gen_sweep.rows[i].status;
        char seg[128];
        int ind = 16, line = 0;
        const char *at = NULL;
        for (const char *p = path; *p;) {
            size_t n = strcspn(p, ".[");
            (void)snprintf(seg, sizeof(seg), "%.*s", (int)n, p);
            line = find_key(y, ind, seg, line, &at);
            if (line < 0)
                fail_msg("status.%s: no \"%s:\" at indentation %d", path, seg, ind);
            p += n;
            if (strncmp(p, "[].", 3) == 0) {
                ind += 6;
                p += 3;
            } else if (*p == '.') {
                ind += 4;
                p++;
            }
        }
        /* the row's own schema: its type, and its cap for lists */
        const struct bench_field *f = &gen_sweep.rows[i];
        const char *end = at ? strchr(at, '\n') : NULL;
        const char *type = end ? strstr(end, "type: ") : NULL;
        assert_non_null(type);
        if (f->type == BF_LIST || f->type == BF_NUMLIST || f->type == BF_INTERVAL) {
            char cap[40];
            (void)snprintf(cap, sizeof(cap), "maxItems: %d\n", f->max_items);
            const char *c = type ? strstr(type, "maxItems: ") : NULL;
            if (!c || strncmp(c, cap, strlen(cap)) != 0)
                fail_msg("status.%s: not %s", path, cap);
        }
    }
    /* the phase's enum: the sweep's phases, nothing else */
    assert_non_null(strstr(y, "enum: [Pending, Running, Succeeded, Stopped, Failed]\n"));
    /* conditions keyed by type, as Kubernetes declares them */
    assert_non_null(strstr(y, "x-kubernetes-list-map-keys: [type]"));
    /* the renamed latencies are grouped, the flat keys gone */
    assert_null(strstr(y, "latencyP99Ms"));
    free(y);
}

/* The run's schema: its phases, startAt as int-or-string, hpaTimeline capped as the code caps it.
 */
static void test_run_schema_controller_rows(void **state)
{
    (void)state;
    char *y = capture(schema, &gen_run, 16);
    assert_non_null(strstr(y, "enum: [Pending, Initializing, Running, Collecting, Succeeded, "
                              "Failed]\n"));
    const char *at = NULL;
    assert_true(find_key(y, 16, "startAt", 0, &at) >= 0);
    assert_non_null(at ? strstr(at, "x-kubernetes-int-or-string: true") : NULL);
    assert_true(find_key(y, 16, "hpaTimeline", 0, &at) >= 0);
    char cap[40];
    (void)snprintf(cap, sizeof(cap), "maxItems: %d\n",
                   bench_fields[BK_STATUS_HPA_TIMELINE].max_items);
    assert_non_null(at ? strstr(at, cap) : NULL);
    free(y);
}

/* One docs line per row, in order, naming its path. */
static void test_docs_one_line_per_row(void **state)
{
    (void)state;
    char *d = capture(docs, &gen_sweep, 0);
    const char *p = strchr(strchr(d, '\n') + 1, '\n') + 1; /* after the header and its rule */
    for (size_t i = 0; i < gen_sweep.n; i++) {
        char cell[200];
        (void)snprintf(cell, sizeof(cell), "| `%s` |", gen_sweep.rows[i].status);
        if (strncmp(p, cell, strlen(cell)) != 0)
            fail_msg("docs line %zu: want %s, got %.60s", i, cell, p);
        p = strchr(p, '\n') + 1;
    }
    assert_string_equal(p, "");
    free(d);
}

/* The limits the table states are the ones the code keeps. */
static void test_sweep_caps_match_the_spec(void **state)
{
    (void)state;
    assert_int_equal(bench_sweep_fields[BSW_STEPS].max_items, API_SWEEP_MAX_STEPS);
    assert_int_equal(bench_sweep_fields[BSW_VALUES].max_items, API_SWEEP_MAX_STEPS);
    assert_int_equal(bench_sweep_fields[BSW_STEPS_RUNS].max_items, API_SWEEP_MAX_REPEATS);
    /* every printer column's status path is a row */
    for (size_t i = 0; i < bench_sweep_ncolumns; i++) {
        const char *jp = bench_sweep_columns[i].json_path;
        if (strncmp(jp, ".status.", 8) != 0)
            continue;
        bool found = false;
        for (size_t k = 0; k < gen_sweep.n && !found; k++)
            found = strcmp(gen_sweep.rows[k].status, jp + 8) == 0;
        if (!found)
            fail_msg("column %s: %s is no row", bench_sweep_columns[i].name, jp);
    }
}

/* The keep-list named name in the generated header, as a NULL-terminated array (freed by the
 * caller with its strings). */
static char **keep_list(const char *header, const char *name)
{
    const char *p = strstr(header, name);
    assert_non_null(p);
    char **out = util_xcalloc(64, sizeof(*out));
    int n = 0;
    for (p = strchr(p, '\n') + 1; strncmp(p, "    \"", 5) == 0; p = strchr(p, '\n') + 1) {
        const char *q = strchr(p + 5, '"');
        assert_true(n < 63);
        out[n] = util_xcalloc(1, (size_t)(q - p - 5) + 1);
        memcpy(out[n++], p + 5, (size_t)(q - p - 5));
    }
    assert_true(strncmp(p, "    NULL,", 9) == 0);
    return out;
}

static void free_list(char **l)
{
    for (char **p = l; *p; p++)
        free(*p);
    free(l);
}

/* A status with a value at every row's path (lists as one item), typed loosely: a leaf a string,
 * a section an object. */
static cJSON *full_status(void)
{
    cJSON *st = cJSON_CreateObject();
    for (size_t i = 0; i < bench_nfields; i++) {
        const char *s = bench_fields[i].status;
        if (!s || strstr(s, "[]") || bench_fields[i].type == BF_SECTION)
            continue;
        (void)bench_json_put(st, s, cJSON_CreateString("v"));
    }
    return st;
}

/* Applying a keep-list to a full status leaves a value at every row read back with flag (marked
 * so, or copied into a sweep's run entries), and nothing at a leaf no such row covers. */
static void check_keep(const char *header, const char *name, unsigned flag)
{
    char **list = keep_list(header, name);
    cJSON *st = full_status();
    util_jkeep_paths(st, (const char *const *)list);
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        if (!f->status || strstr(f->status, "[]") || f->type == BF_SECTION)
            continue;
        /* read back: the row itself or an ancestor row has the flag */
        bool read = false;
        for (size_t k = 0; k < bench_nfields && !read; k++) {
            const char *a = bench_fields[k].status;
            size_t n = a ? strcspn(a, "[") : 0;
            unsigned r = bench_fields[k].read;
            for (size_t j = 0; j < bench_sweep_nfields; j++) /* a run entry's copy */
                r |= bench_sweep_fields[j].from == (int)k ? RB_SWEEP : 0;
            read = a && (r & flag) && strncmp(f->status, a, n) == 0 &&
                   (f->status[n] == '\0' || f->status[n] == '.' || f->status[n] == '[');
        }
        bool kept = bench_json_at(st, f->status) != NULL;
        if (read != kept)
            fail_msg("%s: status.%s %s", name, f->status,
                     read ? "read back but dropped" : "kept but nobody reads it");
    }
    cJSON_Delete(st);
    free_list(list);
}

static void test_cache_keep_lists(void **state)
{
    (void)state;
    char *h = capture(keep, NULL, 0);
    check_keep(h, "ctrl_keep_run_live[]", RB_LIVE);
    check_keep(h, "ctrl_keep_run_done[]", RB_DONE);
    check_keep(h, "ctrl_keep_sweep_run[]", RB_SWEEP);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_schema_has_every_row),
        cmocka_unit_test(test_run_schema_controller_rows),
        cmocka_unit_test(test_docs_one_line_per_row),
        cmocka_unit_test(test_sweep_caps_match_the_spec),
        cmocka_unit_test(test_cache_keep_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
