/* fuzz-package: bench */
/* libFuzzer target: fio JSON output -> parsed result -> result JSON and compact summary. */
#include "pkg/bench/aggregate.h"
#include "pkg/bench/result.h"
#include "pkg/util/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bench_fio_result *f = NULL;
    char err[128];
    if (bench_fio_parse((const char *)data, size, &f, err, sizeof(err)))
        return 0;
    struct bench_result_meta m = {.kind = "fio", .worker = 0, .complete = true};
    cJSON *res = bench_result_new(&m);
    bench_result_add_fio(res, f);
    char *full = util_must(cJSON_PrintUnformatted(res));
    cJSON *back = cJSON_Parse(full);
    if (!back)
        abort();
    cJSON_Delete(back);
    free(full);
    char *c = bench_result_compact(res, BENCH_COMPACT_LIMIT);
    if (strlen(c) >= BENCH_COMPACT_LIMIT)
        abort();
    cJSON *p = cJSON_Parse(c);
    if (!p)
        abort();
    cJSON_Delete(p);
    free(c);
    const cJSON *two[2] = {res, res};
    cJSON *agg = bench_aggregate(two, 2, NULL, 0);
    cJSON_Delete(agg);
    free(bench_result_human(res));
    cJSON_Delete(res);
    bench_fio_result_free(f);
    return 0;
}
