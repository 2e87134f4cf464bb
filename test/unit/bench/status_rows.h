/* Test helper: every key of a status written by the code has a row in a contract table
 * (pkg/bench/fields.def for a BenchmarkRun, sweep_fields.def for a BenchmarkSweep), so a key
 * spelled by hand, not by its id, fails the test that writes it (test_status, test_reconcile,
 * test_sweep). */
#ifndef TEST_BENCH_STATUS_ROWS_H
#define TEST_BENCH_STATUS_ROWS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pkg/bench/fields.h"

static inline const struct bench_field *status_row(const struct bench_field *rows, size_t n,
                                                   const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].status && strcmp(rows[i].status, path) == 0)
            return &rows[i];
    return NULL;
}

/* The first key below o (status, or a section or list item at status path prefix, "" at the
 * top) whose status path has no row of rows[n], into out ("summary.foo", "hpaTimeline[].bar");
 * false when every key has one. Sections and list items are walked; a row of any other type
 * (an object copied whole, conditions, a list of strings, ...) holds what it holds. */
static inline bool status_unknown_key(const cJSON *o, const struct bench_field *rows, size_t n,
                                      const char *prefix, char *out, size_t len)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        char path[256];
        (void)snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", v->string);
        const struct bench_field *f = status_row(rows, n, path);
        if (!f) {
            (void)snprintf(out, len, "%s", path);
            return true;
        }
        if (f->type == BF_SECTION && cJSON_IsObject(v) &&
            status_unknown_key(v, rows, n, path, out, len))
            return true;
        if (f->type == BF_LIST) {
            char items[260];
            (void)snprintf(items, sizeof(items), "%s[]", path);
            const cJSON *it;
            cJSON_ArrayForEach(it, v)
            {
                if (cJSON_IsObject(it) && status_unknown_key(it, rows, n, items, out, len))
                    return true;
            }
        }
    }
    return false;
}

/* Fails the test naming the first key of a BenchmarkRun status that has no row. */
#define assert_status_keys_have_rows(status)                                                       \
    do {                                                                                           \
        char unknown_[256];                                                                        \
        if (status_unknown_key((status), bench_fields, bench_nfields, "", unknown_,                \
                               sizeof(unknown_)))                                                  \
            fail_msg("status.%s is written but has no row in pkg/bench/fields.def", unknown_);     \
    } while (0)

/* The same for a BenchmarkSweep status and pkg/bench/sweep_fields.def. */
#define assert_sweep_status_keys_have_rows(status)                                                 \
    do {                                                                                           \
        char unknown_[256];                                                                        \
        if (status_unknown_key((status), bench_sweep_fields, bench_sweep_nfields, "", unknown_,    \
                               sizeof(unknown_)))                                                  \
            fail_msg("status.%s is written but has no row in pkg/bench/sweep_fields.def",          \
                     unknown_);                                                                    \
    } while (0)

#endif
