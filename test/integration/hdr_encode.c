/* Reads pgbench -l transaction logs (the files named on the command line), builds the runner's
 * latency histogram and prints what a second HdrHistogram implementation must agree with: the
 * V2 compressed base64 encoding, the count, and for each percentile the highest value of the
 * bucket that bench_hist_percentile answers from: HdrHistogram's getValueAtPercentile returns the
 * highest value equivalent to the value at the same nearest rank, ceil(q/100 * n). Used by
 * test/e2e/36. */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "pkg/bench/histogram.h"
#include "pkg/bench/pgbench.h"

int main(int argc, char **argv)
{
    struct bench_txlog *l = bench_txlog_new();
    for (int i = 1; i < argc; i++)
        if (bench_txlog_read_file(l, argv[i]) != 0) {
            (void)fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
    const struct bench_hist *h = l->hist;
    char *enc = bench_hist_to_hdr_base64(h);
    cJSON *o = cJSON_CreateObject();
    if (!enc || !o)
        return 1;
    cJSON_AddStringToObject(o, "base64", enc);
    cJSON_AddNumberToObject(o, "count", (double)bench_hist_count(h));
    cJSON_AddNumberToObject(o, "maxHigh", (double)bench_hist_bucket_high(bench_hist_index(h->max)));
    cJSON_AddNumberToObject(o, "minLow", (double)bench_hist_bucket_low(bench_hist_index(h->min)));
    cJSON *ps = cJSON_AddObjectToObject(o, "percentiles");
    static const double qs[] = {50, 90, 95, 99, 99.9, 99.99};
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        int64_t v = bench_hist_percentile(h, qs[i]);
        char k[16];
        (void)snprintf(k, sizeof(k), "%g", qs[i]);
        cJSON_AddNumberToObject(ps, k, (double)bench_hist_bucket_high(bench_hist_index(v)));
    }
    char *s = cJSON_PrintUnformatted(o);
    puts(s);
    free(s);
    free(enc);
    cJSON_Delete(o);
    bench_txlog_free(l);
    return 0;
}
