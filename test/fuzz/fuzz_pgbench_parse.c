/* fuzz-package: bench */
/* libFuzzer target: pgbench console output (two interleaved streams), -l logs, progress lines,
 * pgbench -i's step and rows lines, and the result JSON / compact summary built from what was parsed. */
#include "pkg/bench/init_progress.h"
#include "pkg/bench/result.h"
#include "test/fuzz/fuzz_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* first byte: chunk size for the interleaving */
    size_t chunk = (size_t)(data[0] % 31) + 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    struct bench_pgbench_result *r = bench_pgbench_result_new();
    for (size_t off = 0, i = 0; off < len; off += chunk, i++) {
        size_t n = len - off < chunk ? len - off : chunk;
        bench_pgbench_feed(r, (i % 3 == 2) ? BENCH_STREAM_STDERR : BENCH_STREAM_STDOUT, text + off,
                           n);
    }
    bench_pgbench_finish(r);

    struct bench_txlog *l = bench_txlog_new();
    l->rate_limited = data[0] & 1;
    bench_txlog_feed(l, text, len);
    bench_txlog_finish(l);
    struct bench_timeline_point pt;
    bench_pgbench_parse_progress(text, len < 400 ? len : 400, &pt);
    /* pgbench -i's step and rows lines, line by line */
    struct bench_init_progress ip = {0};
    for (size_t off = 0; off < len;) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
        if (bench_init_progress_line(&ip, text + off, n) && (ip.rows < 0 || ip.rows_total < 0))
            abort();
        off += n + 1;
    }
    (void)bench_init_rows_from_bytes((double)len * 8192, data[0] % 120, 8192);

    struct bench_result_meta m = {.kind = "pgbench", .worker = 1, .child_exit = 2};
    cJSON *res = bench_result_new(&m);
    bench_result_add_pgbench(res, r, l->hist, NULL);
    cJSON *back = fuzz_json_reparse(res, 0); /* the result must always be valid JSON */
    if (bench_result_validate(back, NULL, 0))
        abort();
    cJSON_Delete(back);
    fuzz_json_compact(res);
    free(bench_result_human(res));
    cJSON_Delete(res);
    bench_txlog_free(l);
    bench_pgbench_result_free(r);
    return 0;
}
