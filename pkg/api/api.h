/* pkg/api: the operator's API objects, shared by the operator (pkg/controller) and the plugin
 * (pkg/plugin), so both read and build them the same way.
 *
 *   spec.c        the BenchmarkRun spec parsed, defaulted and validated (errors name the field)
 *   sweep_spec.c  the BenchmarkSweep spec, and the BenchmarkRun of each of its steps
 *   manifest.c    the children of a run (Jobs, PVC, HPA), the runners' environment and command
 *                 lines, labels, annotations and the resources' names
 *   status.c      conditions, and the result projected into status (through pkg/bench/fields.h)
 *   resultcm.c    the result ConfigMap <run>-result, where a run's whole result lasts
 *   phase.c       the phases of runs and sweeps and their one name table
 *   placement.c   where a run's workers ran, and whether two shared a node while another was free
 *   timing.c      a run's phase timing (the result ConfigMap's timing.steps)
 *
 * Owns the shape of every object the operator reads or writes: names, labels, validation,
 * defaults. Must not know when or why an object is written (pkg/controller decides, and sends
 * requests), nor how the API server is spoken to (pkg/kube: only its resource descriptors and
 * status types are used here), nor how results are measured (pkg/bench). Nothing here sends a
 * request, prints, or exits. Include this or the individual headers. */
#ifndef PGBO_API_API_H
#define PGBO_API_API_H

#include "pkg/api/manifest.h"
#include "pkg/api/phase.h"
#include "pkg/api/resultcm.h"
#include "pkg/api/spec.h"
#include "pkg/api/status.h"
#include "pkg/api/sweep_spec.h"

#endif
