/* pgbench-gen-contract: prints what is generated from the contract tables (pkg/bench/fields.def:
 * the result and a BenchmarkRun's status; pkg/bench/sweep_fields.def: a BenchmarkSweep's status).
 * scripts/generate.sh splices its output into the CRDs and the docs.
 *
 *   pgbench-gen-contract crd-status INDENT         BenchmarkRun status properties (YAML)
 *   pgbench-gen-contract crd-columns INDENT        its additionalPrinterColumns (YAML)
 *   pgbench-gen-contract crd-sweep-status INDENT   BenchmarkSweep status properties (YAML)
 *   pgbench-gen-contract crd-sweep-columns INDENT  its additionalPrinterColumns (YAML)
 *   pgbench-gen-contract docs-result               field tables for docs/result-schema.md
 *   pgbench-gen-contract docs-status               docs/spec.md's BenchmarkRun status table
 *   pgbench-gen-contract docs-sweep-status         docs/spec.md's BenchmarkSweep status table
 *   pgbench-gen-contract docs-verdict              the verdict's rules for docs/troubleshooting.md
 *                                                  (pkg/bench/verdict.def)
 *   pgbench-gen-contract cache-keep                pkg/controller/cache_keep.h: the status paths
 *                                                  the controllers read back (the cache keep-lists)
 *   pgbench-gen-contract json [sweep]              a table as JSON (for tests)
 */
#include "cmd/gen-contract/gen.h"
#include "pkg/util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    util_json_init(); /* first: every cJSON call after it is total (json.h) */
    const char *what = argc > 1 ? argv[1] : "";
    int ind = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(what, "crd-status") == 0)
        gen_schema_children(&gen_run, ind, "");
    else if (strcmp(what, "crd-columns") == 0)
        gen_crd_columns(bench_columns, bench_ncolumns, ind);
    else if (strcmp(what, "crd-sweep-status") == 0)
        gen_schema_children(&gen_sweep, ind, "");
    else if (strcmp(what, "crd-sweep-columns") == 0)
        gen_crd_columns(bench_sweep_columns, bench_sweep_ncolumns, ind);
    else if (strcmp(what, "docs-result") == 0)
        gen_docs_result();
    else if (strcmp(what, "docs-status") == 0)
        gen_docs_status(&gen_run);
    else if (strcmp(what, "docs-sweep-status") == 0)
        gen_docs_status(&gen_sweep);
    else if (strcmp(what, "docs-verdict") == 0)
        gen_docs_verdict();
    else if (strcmp(what, "cache-keep") == 0)
        gen_cache_keep();
    else if (strcmp(what, "json") == 0)
        gen_json(argc > 2 && strcmp(argv[2], "sweep") == 0 ? &gen_sweep : &gen_run);
    else {
        (void)fprintf(
            stderr, "usage: pgbench-gen-contract crd-status INDENT | crd-columns INDENT | "
                    "crd-sweep-status INDENT | crd-sweep-columns INDENT | docs-result | "
                    "docs-status | docs-sweep-status | docs-verdict | cache-keep | json [sweep]\n");
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
