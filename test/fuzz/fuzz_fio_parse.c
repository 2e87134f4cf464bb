/* fuzz-package: bench */
/* libFuzzer target: fio JSON output -> parsed result -> result JSON and compact summary. */
#include "pkg/bench/aggregate.h"
#include "pkg/bench/result.h"
#include "test/fuzz/fuzz_json.h"

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
    cJSON_Delete(fuzz_json_reparse(res, 0));
    fuzz_json_compact(res);
    const cJSON *two[2] = {res, res};
    cJSON *agg = bench_aggregate(two, 2, NULL, 0);
    cJSON_Delete(agg);
    free(bench_result_human(res));
    cJSON_Delete(res);
    bench_fio_result_free(f);
    return 0;
}
