/* Writing result objects by the contract's keys (put.h). */
#include "pkg/bench/put.h"
#include "pkg/util/mem.h"

#include <math.h>

void bench__put_item(cJSON *o, const char *key, cJSON *item)
{
    util_must(item);
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddItemToObject(o, key, item);
}

void bench__put_num(cJSON *o, const char *key, double v)
{
    bench__put_item(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

void bench__put_count(cJSON *o, const char *key, int64_t v)
{
    bench__put_num(o, key, v < 0 ? NAN : (double)v);
}

void bench__put_bool(cJSON *o, const char *key, bool v)
{
    bench__put_item(o, key, cJSON_CreateBool(v));
}

void bench__put_str(cJSON *o, const char *key, const char *s)
{
    bench__put_item(o, key, s && *s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void bench__put_rows(cJSON *o, const void *src, const struct bench_put_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *f = (const char *)src + rows[i].off;
        const char *k = bench_key(rows[i].id);
        switch (rows[i].kind) {
        case BENCH_PUT_NUM:
            bench__put_num(o, k, *(const double *)(const void *)f);
            break;
        case BENCH_PUT_INT:
            bench__put_num(o, k, *(const int *)(const void *)f);
            break;
        case BENCH_PUT_U64:
            bench__put_num(o, k, (double)*(const uint64_t *)(const void *)f);
            break;
        case BENCH_PUT_COUNT:
            bench__put_count(o, k, *(const int64_t *)(const void *)f);
            break;
        case BENCH_PUT_COUNT_INT:
            bench__put_count(o, k, *(const int *)(const void *)f);
            break;
        case BENCH_PUT_BOOL:
            bench__put_bool(o, k, *(const bool *)(const void *)f);
            break;
        case BENCH_PUT_STR:
            bench__put_str(o, k, *(char *const *)(const void *)f);
            break;
        }
    }
}

cJSON *bench__put_array(const void *items, size_t n, size_t size, const struct bench_put_row *rows,
                        size_t nrows)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        bench__put_rows(o, (const char *)items + i * size, rows, nrows);
    }
    return arr;
}
