/* pkg/plugin/pgbench_args: pgbench's own command line (`kubectl pgbench run ... -- -c 10 -T 60`)
 * mapped onto spec.workload.pgbench.run, one table row per pgbench option.
 *
 * Options with a spec field fill that field; options without one pass through
 * spec.workload.pgbench.run.extraArgs when the operator's allow-list takes them
 * (bench_pgbench_check_extra, the list the operator and the runner apply); everything else is
 * refused with a message naming the option. Forms as pgbench's getopt takes them: "-c 10", "-c10",
 * "--client=10", "--client 10", bundled flags ("-nr"). One non-option argument is the database. */
#ifndef PGBO_PLUGIN_PGBENCH_ARGS_H
#define PGBO_PLUGIN_PGBENCH_ARGS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Fills `run` (the spec.workload.pgbench.run object, borrowed and modified) from args. When a
 * database name is given, *dbname points at it (borrowed from args), else it is left alone.
 * Returns 0, or -EINVAL with a message naming the option in err. */
int plugin_pgbench_args(cJSON *run, const char *const *args, size_t nargs, const char **dbname,
                        char *err, size_t errlen);

#endif
