/* cmd/gen-contract/gen: what is generated from the contract tables, printed on stdout (main.c
 * says which command prints which). Split from main.c so that the unit test
 * (test/unit/gen/test_gen.c) calls it. */
#ifndef PGBO_GEN_CONTRACT_GEN_H
#define PGBO_GEN_CONTRACT_GEN_H

#include <stddef.h>

#include "pkg/api/phase.h"
#include "pkg/bench/fields.h"

/* A status table: its rows, and the phases its object can be in (status.phase's enum). */
struct gen_table {
    const struct bench_field *rows;
    size_t n;
    const enum api_phase *phases;
    size_t nphases;
};

/* BenchmarkRun's status (fields.def) and BenchmarkSweep's (sweep_fields.def). */
extern const struct gen_table gen_run, gen_sweep;

/* A CRD's status properties below parent ("" = all), indented by ind. */
void gen_schema_children(const struct gen_table *t, int ind, const char *parent);
/* additionalPrinterColumns, indented by ind. */
void gen_crd_columns(const struct bench_column *cols, size_t n, int ind);
/* docs/result-schema.md's field tables. */
void gen_docs_result(void);
/* docs/spec.md's status table of t. */
void gen_docs_status(const struct gen_table *t);
/* docs/troubleshooting.md's verdict tables. */
void gen_docs_verdict(void);
/* pkg/controller/cache_keep.h. */
void gen_cache_keep(void);
/* The table as JSON. */
void gen_json(const struct gen_table *t);

#endif
