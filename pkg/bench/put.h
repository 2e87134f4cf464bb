/* Writing result objects (package-internal): a value at a contract key (fields.def), and a C
 * struct's fields at their keys by a table of rows. Used by result.c (pgbench) and fio.c. */
#ifndef PGBO_BENCH_PUT_H
#define PGBO_BENCH_PUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "pkg/bench/fields.h"

/* The adders replace key (moving it last) and cannot fail: allocation failure aborts (mem.h).
 * NAN or a negative count: null. put_item takes ownership of item. */
void bench__put_item(cJSON *o, const char *key, cJSON *item);
void bench__put_num(cJSON *o, const char *key, double v);
void bench__put_count(cJSON *o, const char *key, int64_t v);
void bench__put_bool(cJSON *o, const char *key, bool v);
/* NULL or empty: null */
void bench__put_str(cJSON *o, const char *key, const char *s);

/* How a row's value sits in a C struct: bench__put_rows writes it at its key. */
enum bench_put_kind {
    BENCH_PUT_NUM,       /* double, NAN: null */
    BENCH_PUT_INT,       /* int, as is */
    BENCH_PUT_U64,       /* uint64_t, as is */
    BENCH_PUT_COUNT,     /* int64_t, negative: null */
    BENCH_PUT_COUNT_INT, /* int, negative: null */
    BENCH_PUT_BOOL,      /* bool */
    BENCH_PUT_STR,       /* char *, NULL or empty: null */
};

struct bench_put_row {
    enum bench_field_id id;
    enum bench_put_kind kind;
    size_t off; /* in the struct */
};

/* A row of struct type: its field f (a member designator) at key BK_<id>, of kind
 * BENCH_PUT_<kind>. */
#define BENCH_PUT_ROW(type, id, kind, f)                                                           \
    {                                                                                              \
        BK_##id, BENCH_PUT_##kind, offsetof(type, f)                                               \
    }
#define BENCH_PUT_NROWS(rows) (sizeof(rows) / sizeof((rows)[0]))

/* The n rows of the struct at src, into o. */
void bench__put_rows(cJSON *o, const void *src, const struct bench_put_row *rows, size_t n);
/* A new array: one object per item of items (n of size bytes), rows from each. */
cJSON *bench__put_array(const void *items, size_t n, size_t size, const struct bench_put_row *rows,
                        size_t nrows);

#endif
