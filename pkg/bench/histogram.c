/* HDR-style latency histogram (see histogram.h for the bucket layout). */
#include "pkg/bench/histogram.h"
#include "pkg/util/mem.h"

#include <zlib.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_hist_init(struct bench_hist *h)
{
    memset(h, 0, sizeof(*h));
}

struct bench_hist *bench_hist_new(void)
{
    return util_xcalloc(1, sizeof(struct bench_hist));
}

void bench_hist_free(struct bench_hist *h)
{
    free(h);
}

static int floor_log2(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

int bench_hist_index(int64_t v)
{
    if (v < 0)
        v = 0;
    if (v > BENCH_HIST_MAX_VALUE)
        v = BENCH_HIST_MAX_VALUE;
    if (v < BENCH_HIST_SUB_COUNT)
        return (int)v;
    int e = floor_log2((uint64_t)v);
    int shift = e - BENCH_HIST_SUB_BITS;
    int sub = (int)((uint64_t)v >> shift) - BENCH_HIST_SUB_COUNT;
    return BENCH_HIST_SUB_COUNT + shift * BENCH_HIST_SUB_COUNT + sub;
}

int64_t bench_hist_bucket_low(int index)
{
    if (index < BENCH_HIST_SUB_COUNT)
        return index < 0 ? 0 : index;
    int shift = (index - BENCH_HIST_SUB_COUNT) / BENCH_HIST_SUB_COUNT;
    int sub = (index - BENCH_HIST_SUB_COUNT) % BENCH_HIST_SUB_COUNT;
    return (int64_t)(BENCH_HIST_SUB_COUNT + sub) << shift;
}

int64_t bench_hist_bucket_high(int index)
{
    if (index < BENCH_HIST_SUB_COUNT)
        return index < 0 ? 0 : index;
    int shift = (index - BENCH_HIST_SUB_COUNT) / BENCH_HIST_SUB_COUNT;
    return bench_hist_bucket_low(index) + ((int64_t)1 << shift) - 1;
}

void bench_hist_add_n(struct bench_hist *h, int64_t v, uint64_t n)
{
    if (n == 0)
        return;
    if (v < 0 || v > BENCH_HIST_MAX_VALUE) {
        h->clamped += n;
        v = v < 0 ? 0 : BENCH_HIST_MAX_VALUE;
    }
    h->counts[bench_hist_index(v)] += n;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    h->count += n;
    h->sum += (double)v * (double)n;
}

void bench_hist_add(struct bench_hist *h, int64_t v)
{
    bench_hist_add_n(h, v, 1);
}

void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
    if (src->count == 0)
        return;
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
}

int64_t bench_hist_value_at_rank(const struct bench_hist *h, uint64_t rank)
{
    if (h->count == 0)
        return 0;
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t cum = 0;
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++) {
        cum += h->counts[i];
        if (cum >= rank) {
            int64_t lo = bench_hist_bucket_low(i), hi = bench_hist_bucket_high(i);
            int64_t mid = lo + (hi - lo) / 2;
            if (mid < h->min)
                mid = h->min;
            if (mid > h->max)
                mid = h->max;
            return mid;
        }
    }
    return h->max;
}

/* 128-bit products keep ceil(num * count / den) exact for any 64-bit operands. */
__extension__ typedef unsigned __int128 hist_u128;

/* ceil(num * n / den) for den > 0 */
static uint64_t ceil_muldiv(uint64_t num, uint64_t n, hist_u128 den)
{
    hist_u128 p = (hist_u128)num * n;
    hist_u128 q = p / den + (p % den != 0);
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

int64_t bench_hist_quantile(const struct bench_hist *h, uint64_t num, uint64_t den)
{
    if (h->count == 0 || den == 0)
        return 0;
    if (num == 0)
        return h->min;
    if (num >= den)
        return h->max;
    return bench_hist_value_at_rank(h, ceil_muldiv(num, h->count, den));
}

/* Reads pct (0 < pct < 100) as the decimal M * 10^e of its 15-significant-digit form (DBL_DIG: a
 * decimal written with at most 15 digits survives the trip through a double unchanged), so that
 * pct / 100 = M / 10^k with k = 2 - e. Returns 0, or -1 when the text is not understood. */
static int percent_decimal(double pct, uint64_t *mant, int *k)
{
    char buf[64];
    int n = snprintf(buf, sizeof(buf), "%.15g", pct);
    if (n <= 0 || (size_t)n >= sizeof(buf))
        return -1;
    uint64_t m = 0;
    int digits = 0, frac = 0, seen_point = 0, e = 0;
    const char *p = buf;
    for (; *p; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
        } else if (*p >= '0' && *p <= '9') {
            if ((m > 0 || *p != '0') && ++digits > 19) /* significant digits */
                return -1;
            m = m * 10 + (uint64_t)(*p - '0');
            frac += seen_point;
        } else {
            break;
        }
    }
    if (*p == 'e' || *p == 'E') {
        char *end;
        long x = strtol(p + 1, &end, 10);
        if (*end || x < -1000 || x > 1000)
            return -1;
        e = (int)x;
    } else if (*p) {
        return -1;
    }
    *mant = m;
    *k = 2 - (e - frac);
    return 0;
}

int64_t bench_hist_percentile(const struct bench_hist *h, double pct)
{
    if (h->count == 0)
        return 0;
    if (!(pct > 0))
        return h->min;
    if (pct >= 100)
        return h->max;
    uint64_t m;
    int k;
    if (percent_decimal(pct, &m, &k) || k < 1)
        return h->max; /* not reached for 0 < pct < 100 */
    /* M < 10^19 and count < 2^64, so M * count < 10^39; with k > 38 the rank is 1 */
    if (k > 38)
        return bench_hist_value_at_rank(h, 1);
    hist_u128 den = 1;
    for (int i = 0; i < k; i++)
        den *= 10;
    return bench_hist_value_at_rank(h, ceil_muldiv(m, h->count, den));
}

uint64_t bench_hist_count(const struct bench_hist *h)
{
    return h->count;
}
int64_t bench_hist_min(const struct bench_hist *h)
{
    return h->count ? h->min : 0;
}
int64_t bench_hist_max(const struct bench_hist *h)
{
    return h->count ? h->max : 0;
}
double bench_hist_mean(const struct bench_hist *h)
{
    return h->count ? h->sum / (double)h->count : 0.0;
}

cJSON *bench_hist_to_json(const struct bench_hist *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "unit", "us");
    cJSON_AddNumberToObject(o, "subBucketBits", BENCH_HIST_SUB_BITS);
    cJSON *buckets = cJSON_AddArrayToObject(o, "buckets");
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++) {
        if (!h->counts[i])
            continue;
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(buckets, pair);
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(i));
        cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)h->counts[i]));
    }
    cJSON_AddNumberToObject(o, "count", (double)h->count);
    cJSON_AddNumberToObject(o, "min", (double)bench_hist_min(h));
    cJSON_AddNumberToObject(o, "max", (double)bench_hist_max(h));
    cJSON_AddNumberToObject(o, "sum", h->sum);
    cJSON_AddNumberToObject(o, "clamped", (double)h->clamped);
    return o;
}

static int json_u64(const cJSON *o, const char *key, uint64_t *out, int required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        *out = 0;
        return required ? -EINVAL : 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1.8e19 ||
        v->valuedouble != floor(v->valuedouble))
        return -EINVAL;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

/* The histogram was written with this layout: unit "us", our subBucketBits. */
static bool same_layout(const cJSON *json)
{
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(json, "unit");
    const cJSON *bits = cJSON_GetObjectItemCaseSensitive(json, "subBucketBits");
    return cJSON_IsString(unit) && strcmp(unit->valuestring, "us") == 0 && cJSON_IsNumber(bits) &&
           bits->valuedouble == BENCH_HIST_SUB_BITS;
}

/* A whole number from 0 to max: below max when below, else at most max. */
static bool whole_in(const cJSON *v, double max, bool below)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble) &&
           (below ? v->valuedouble < max : v->valuedouble <= max);
}

/* Adds the [index, count] pairs of buckets into h, their counts into *total. */
static int add_buckets(struct bench_hist *h, const cJSON *buckets, uint64_t *total)
{
    const cJSON *pair;
    cJSON_ArrayForEach(pair, buckets)
    {
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
            return -EINVAL;
        const cJSON *i = cJSON_GetArrayItem(pair, 0), *c = cJSON_GetArrayItem(pair, 1);
        if (!whole_in(i, BENCH_HIST_BUCKETS, true) || !whole_in(c, 1.8e19, false))
            return -EINVAL;
        uint64_t n = (uint64_t)c->valuedouble;
        h->counts[(int)i->valuedouble] += n;
        *total += n;
    }
    return 0;
}

/* For older writers without "sum": an estimate from the bucket midpoints. */
static double midpoint_sum(const struct bench_hist *h)
{
    double sum = 0;
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++)
        if (h->counts[i])
            sum += (double)h->counts[i] *
                   (double)(bench_hist_bucket_low(i) + bench_hist_bucket_high(i)) / 2.0;
    return sum;
}

int bench_hist_from_json(struct bench_hist *h, const cJSON *json)
{
    bench_hist_init(h);
    if (!cJSON_IsObject(json))
        return -EINVAL;
    const cJSON *buckets = cJSON_GetObjectItemCaseSensitive(json, "buckets");
    if (!same_layout(json) || !cJSON_IsArray(buckets))
        goto bad;
    uint64_t count, min, max, clamped;
    if (json_u64(json, "count", &count, 1) || json_u64(json, "min", &min, 0) ||
        json_u64(json, "max", &max, 0) || json_u64(json, "clamped", &clamped, 0))
        goto bad;
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(json, "sum");
    if (sum && (!cJSON_IsNumber(sum) || !(sum->valuedouble >= 0)))
        goto bad;
    uint64_t total = 0;
    if (add_buckets(h, buckets, &total))
        goto bad;
    if (total != count || min > max || max > (uint64_t)BENCH_HIST_MAX_VALUE)
        goto bad;
    h->count = count;
    h->clamped = clamped;
    h->min = count ? (int64_t)min : 0;
    h->max = count ? (int64_t)max : 0;
    h->sum = sum ? sum->valuedouble : midpoint_sum(h);
    return 0;
bad:
    bench_hist_init(h);
    return -EINVAL;
}

/* ---- HdrHistogram V2 encoding ------------------------------------------------------------
 * AbstractHistogram.encodeIntoCompressedByteBuffer: a big-endian header (cookie, payload
 * length, normalizing index offset, significant digits, lowest and highest trackable value,
 * integer-to-double ratio), then the counts up to the max value's index as ZigZag LEB128
 * words (at most 9 bytes, the ninth with 8 bits), a run of zeros written as its negated length;
 * all of it deflated (zlib format) behind an 8-byte header of its own. */

#define HDR_V2_COOKIE 0x1c849313            /* V2EncodingCookieBase | 0x10 */
#define HDR_V2_COMPRESSED_COOKIE 0x1c849314 /* V2CompressedEncodingCookieBase | 0x10 */
#define HDR_HEADER_LEN 40
#define HDR_SIGNIFICANT_DIGITS 2 /* 2 * 10^2 -> 256 sub-buckets, 128 per half: ours */

static uint8_t *put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* ZigZagEncoding.putLong */
static uint8_t *put_zigzag(uint8_t *p, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    for (int i = 0; i < 8; i++) {
        if (u < 0x80) {
            *p++ = (uint8_t)u;
            return p;
        }
        *p++ = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    *p++ = (uint8_t)u; /* the ninth byte carries the last 8 bits */
    return p;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const uint8_t *in, size_t n)
{
    char *out = util_xmalloc((n + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

char *bench_hist_to_hdr_base64(const struct bench_hist *h)
{
    int limit = h->count ? bench_hist_index(h->max) + 1 : 0;
    size_t cap = HDR_HEADER_LEN + (size_t)limit * 9;
    uint8_t *raw = util_xmalloc(cap), *p = raw + HDR_HEADER_LEN;
    for (int i = 0; i < limit;) {
        uint64_t c = h->counts[i++];
        int64_t zeros = 0;
        if (c == 0) {
            zeros = 1;
            while (i < limit && h->counts[i] == 0) {
                zeros++;
                i++;
            }
        }
        p = put_zigzag(p, zeros > 1 ? -zeros : (int64_t)c);
    }
    size_t payload = (size_t)(p - raw) - HDR_HEADER_LEN;
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
    uint8_t *q = put_be32(raw, HDR_V2_COOKIE);
    q = put_be32(q, (uint32_t)payload);
    q = put_be32(q, 0); /* normalizingIndexOffset */
    q = put_be32(q, HDR_SIGNIFICANT_DIGITS);
    q = put_be64(q, 1); /* lowestDiscernibleValue: 1 us */
    q = put_be64(q, (uint64_t)BENCH_HIST_MAX_VALUE);
    (void)put_be64(q, ratio_bits);

    uLongf zlen = compressBound((uLong)(HDR_HEADER_LEN + payload));
    uint8_t *z = util_xmalloc(8 + zlen);
    /* With compressBound's room and a valid level, zlib's only failure is its own allocation
     * (Z_MEM_ERROR): the out-of-memory policy's. */
    if (compress2(z + 8, &zlen, raw, (uLong)(HDR_HEADER_LEN + payload), Z_DEFAULT_COMPRESSION) !=
        Z_OK)
        util_oom(HDR_HEADER_LEN + payload);
    put_be32(put_be32(z, HDR_V2_COMPRESSED_COOKIE), (uint32_t)zlen);
    char *out = base64(z, 8 + zlen);
    free(z);
    free(raw);
    return out;
}
