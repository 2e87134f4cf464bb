/* pkg/api/phase: the phases of a BenchmarkRun and of a BenchmarkSweep (status.phase), one
 * enum and one table of their names.
 *
 * Owns the spelling of every phase; code compares enums, never the strings. It must not know
 * what moves an object from one phase to the next (reconcile.c, sweep.c), nor Kubernetes' own pod
 * phases, which happen to share some names. */
#ifndef PGBO_API_PHASE_H
#define PGBO_API_PHASE_H

#include <stdbool.h>

enum api_phase {
    API_PHASE_PENDING,      /* run and sweep: accepted, nothing started (also: no phase yet) */
    API_PHASE_INITIALIZING, /* run: the init Job prepares the database */
    API_PHASE_RUNNING,      /* run: the workers run; sweep: a step runs */
    API_PHASE_COLLECTING,   /* run: the workers' results are read */
    API_PHASE_SUCCEEDED,    /* run and sweep: done */
    API_PHASE_STOPPED,      /* sweep: a stopWhen rule ended it early */
    API_PHASE_FAILED,       /* run and sweep: done, failed */
    API_PHASE_UNKNOWN,      /* a string that is no phase */
};
#define API_PHASE_COUNT API_PHASE_UNKNOWN

/* The phases a BenchmarkRun can be in, and those of a BenchmarkSweep, in lifecycle order (the
 * CRDs' enums, /metrics' phase gauges). */
extern const enum api_phase api_run_phases[];
#define API_RUN_NPHASES 6
extern const enum api_phase api_sweep_phases[];
#define API_SWEEP_NPHASES 5

/* "Pending", "Initializing", ...; "Unknown" for API_PHASE_UNKNOWN or a value outside the enum.
 * A static string. */
const char *api_phase_name(enum api_phase p);
/* The phase named s (exact spelling); NULL is API_PHASE_PENDING (an object without a phase yet),
 * any other string API_PHASE_UNKNOWN. */
enum api_phase api_phase_parse(const char *s);
/* status.phase as a person reads it: phase itself (also a string that is no phase, as it is), or
 * the name of API_PHASE_PENDING when the object has none yet (NULL). Borrowed: phase, or a
 * static string. */
const char *api_phase_shown(const char *phase);
/* Succeeded, Stopped or Failed: nothing runs or will run. */
bool api_phase_done(enum api_phase p);

#endif
