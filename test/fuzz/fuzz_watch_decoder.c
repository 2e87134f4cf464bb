/* fuzz-package: kube */
/* The watch-stream decoder on arbitrary bytes. Besides memory safety it checks the decoder's
 * contract: feeding the input whole or split at any point gives the same events, unless a line
 * exceeds the cap (then the stream is restarted and no comparison is made). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rec {
    uint64_t hash;
    int n;
};

static void on_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    struct rec *r = ud;
    char *s = cJSON_PrintUnformatted(obj);
    uint64_t h = r->hash ^ ((uint64_t)type + 0x9e3779b97f4a7c15ull);
    for (const char *p = s; p && *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    r->hash = h;
    r->n++;
    free(s);
}

static int run(const char *d, size_t n, const size_t *cuts, int ncuts, size_t max_line,
               struct rec *r)
{
    struct kube_watch_decoder *dec = kube_watch_decoder_new(max_line);
    size_t at = 0;
    int big = 0;
    for (int i = 0; i <= ncuts && !big; i++) {
        size_t end = i < ncuts ? cuts[i] : n;
        if (end < at)
            end = at;
        if (kube_watch_decoder_feed(dec, d + at, end - at, on_event, r) == -E2BIG)
            big = 1;
        at = end;
    }
    kube_watch_decoder_free(dec);
    return big;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t max_line = 16 + (size_t)data[0] * 8;
    size_t cut1 = size > 3 ? data[1] % (size - 2) : 0;
    size_t cut2 = size > 3 ? cut1 + data[2] % (size - 2 - cut1 + 1) : 0;
    const char *d = (const char *)data + 3;
    size_t n = size - 3;
    if (cut1 > n)
        cut1 = n;
    if (cut2 > n)
        cut2 = n;
    struct rec whole = {0}, split = {0}, bytes = {0};
    size_t cuts[2] = {cut1, cut2};
    int big1 = run(d, n, NULL, 0, max_line, &whole);
    int big2 = run(d, n, cuts, 2, max_line, &split);
    if (!big1 && !big2 && (whole.n != split.n || whole.hash != split.hash))
        abort();
    if (n <= 512) {
        struct kube_watch_decoder *dec = kube_watch_decoder_new(max_line);
        int big3 = 0;
        for (size_t i = 0; i < n && !big3; i++)
            big3 = kube_watch_decoder_feed(dec, d + i, 1, on_event, &bytes) == -E2BIG;
        kube_watch_decoder_free(dec);
        if (!big1 && !big3 && (whole.n != bytes.n || whole.hash != bytes.hash))
            abort();
    }
    return 0;
}
