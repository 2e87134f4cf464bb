/* fuzz-package: controller */
/* A worker's result reaches the operator from its pod (termination message or log): outside
 * input. It is aggregated with the other workers' and written into the BenchmarkRun's status,
 * which must stay valid JSON and small enough for etcd whatever a pod printed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/aggregate.h"
#include "pkg/api/status.h"
#include "test/fuzz/fuzz_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void status_from(const cJSON *const *results, int n)
{
    struct api_worker w[2];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < n; i++) {
        w[i].index = i;
        w[i].pod = "run-0-x";
        w[i].terminated = true;
        w[i].result = (cJSON *)results[i];
    }
    cJSON *agg = bench_aggregate(results, (size_t)n, NULL, 0);
    cJSON *st = cJSON_CreateObject();
    if (!st)
        abort();
    api_status_set_results(st, agg, w, n);
    cJSON_Delete(fuzz_json_reparse(st, (size_t)512 * 1024)); /* far below etcd's 1.5 MiB */
    cJSON_Delete(st);
    cJSON_Delete(agg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *res = cJSON_ParseWithLength((const char *)data, size);
    if (!res)
        return 0;
    const cJSON *one[2] = {res, NULL}, *two[2] = {res, res};
    status_from(one, 2);
    status_from(two, 2);
    cJSON_Delete(res);
    return 0;
}
