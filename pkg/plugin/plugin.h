/* pkg/plugin: what `kubectl pgbench` builds and shows, without the cluster.
 *
 *   target.c        --host/--cnpg/--bitnami/--stackgres/--zalando flags -> spec.target
 *   pgbench_args.c  pgbench's own options after `--` -> spec.workload.pgbench.run
 *   build.c         the BenchmarkRun of `run` and `fio`, and the children --dry-run shows
 *   sweep.c         the BenchmarkSweep of `sweep`, and its summary
 *   present.c       results as text tables, comparisons (settings, deltas, repeats against
 *                   their noise), JSON, YAML and CSV exports
 *   chart.c         the pages' line and bar charts as inline SVG, and the HTML escape
 *   report.c        a run's, or several runs', HTML report
 *   report_sweep.c  a sweep's HTML report; yaml.c: JSON trees written as YAML
 *
 * Owns the plugin's flags and output: how a command line becomes a spec, and how a status or a
 * result reads to a person. Must not know the cluster: it sends no requests, runs no processes
 * and prints nothing (cmd/kubectl-pgbench reads and writes objects through pkg/kube, and prints
 * what this builds into capped buffers). Must not decide what the operator decides: a spec is
 * checked by the operator's own parsers and the children come from its manifest builders
 * (pkg/api; never pkg/controller), phases are compared through phase.h, and result values are read
 * by the contract's ids (pkg/bench/fields.h), never by key. Include this or the individual headers.
 */
#ifndef PGBO_PLUGIN_PLUGIN_H
#define PGBO_PLUGIN_PLUGIN_H

#include "pkg/plugin/build.h"
#include "pkg/plugin/chart.h"
#include "pkg/plugin/pgbench_args.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "pkg/plugin/report_sweep.h"
#include "pkg/plugin/sweep.h"
#include "pkg/plugin/target.h"
#include "pkg/plugin/yaml.h"

#endif
