/* What the fuzz targets that build JSON check of it: it prints to text that parses again, under
 * a size cap where there is one. Any failure aborts: a crash, for libFuzzer. Header-only, as each
 * target is built from its one file (scripts/fuzz.sh). */
#ifndef PGBO_FUZZ_JSON_H
#define PGBO_FUZZ_JSON_H

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pkg/bench/result.h"

/* text parses as JSON and is shorter than cap bytes (cap 0: no cap); returns the parse (the
 * caller's). */
static inline cJSON *fuzz_json_parse(const char *text, size_t cap)
{
    if (cap && strlen(text) >= cap)
        abort();
    cJSON *back = cJSON_Parse(text);
    if (!back)
        abort();
    return back;
}

/* o printed and parsed again, under cap bytes (0: no cap); returns the parse (the caller's). */
static inline cJSON *fuzz_json_reparse(const cJSON *o, size_t cap)
{
    char *text = cJSON_PrintUnformatted(o);
    if (!text)
        abort();
    cJSON *back = fuzz_json_parse(text, cap);
    free(text);
    return back;
}

/* A result's compact summary, when it has one, fits BENCH_COMPACT_LIMIT and is JSON. */
static inline void fuzz_json_compact(const cJSON *res)
{
    char *c = bench_result_compact(res, BENCH_COMPACT_LIMIT);
    if (!c)
        return;
    cJSON_Delete(fuzz_json_parse(c, BENCH_COMPACT_LIMIT));
    free(c);
}

#endif
