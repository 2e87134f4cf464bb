/* fuzz-package: bench */
/* pgbench -l transaction logs are read live while pgbench writes them: any bytes, cut anywhere.
 * The first input byte chooses -R (rate-limited columns) and where the stream is cut in two.
 * Every accepted line lands in exactly one counter, and only successful ones in the histogram. */
#include <stdint.h>
#include <stdlib.h>

#include "pkg/bench/histogram.h"
#include "pkg/bench/pgbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct bench_txlog *l = bench_txlog_new();
    l->rate_limited = data[0] & 1;
    const char *text = (const char *)data + 1;
    size_t n = size - 1, cut = n ? (size_t)data[0] % (n + 1) : 0;
    bench_txlog_feed(l, text, cut);
    bench_txlog_feed(l, text + cut, n - cut);
    bench_txlog_finish(l);
    if (bench_hist_count(l->hist) != l->ok)
        abort();
    if (l->ok && (l->first_epoch_us < 0 || l->last_epoch_us < l->first_epoch_us))
        abort();
    if (l->ok && bench_hist_percentile(l->hist, 50) > bench_hist_max(l->hist))
        abort();
    bench_txlog_free(l);
    return 0;
}
