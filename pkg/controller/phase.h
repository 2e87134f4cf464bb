/* pkg/controller/phase: the phases of a BenchmarkRun and of a BenchmarkSweep (status.phase), one
 * enum and one table of their names.
 *
 * Owns the spelling of every phase; code compares enums, never the strings. It must not know
 * what moves an object from one phase to the next (reconcile.c, sweep.c), nor Kubernetes' own pod
 * phases, which happen to share some names. */
#ifndef PGBO_CONTROLLER_PHASE_H
#define PGBO_CONTROLLER_PHASE_H

#include <stdbool.h>

enum ctrl_phase {
    CTRL_PHASE_PENDING,      /* run and sweep: accepted, nothing started (also: no phase yet) */
    CTRL_PHASE_INITIALIZING, /* run: the init Job prepares the database */
    CTRL_PHASE_RUNNING,      /* run: the workers run; sweep: a step runs */
    CTRL_PHASE_COLLECTING,   /* run: the workers' results are read */
    CTRL_PHASE_SUCCEEDED,    /* run and sweep: done */
    CTRL_PHASE_STOPPED,      /* sweep: a stopWhen rule ended it early */
    CTRL_PHASE_FAILED,       /* run and sweep: done, failed */
    CTRL_PHASE_UNKNOWN,      /* a string that is no phase */
};
#define CTRL_PHASE_COUNT CTRL_PHASE_UNKNOWN

/* "Pending", "Initializing", ...; "Unknown" for CTRL_PHASE_UNKNOWN or a value outside the enum.
 * A static string. */
const char *ctrl_phase_name(enum ctrl_phase p);
/* The phase named s (exact spelling); NULL is CTRL_PHASE_PENDING (an object without a phase yet),
 * any other string CTRL_PHASE_UNKNOWN. */
enum ctrl_phase ctrl_phase_parse(const char *s);
/* status.phase as a person reads it: phase itself (also a string that is no phase, as it is), or
 * the name of CTRL_PHASE_PENDING when the object has none yet (NULL). Borrowed: phase, or a
 * static string. */
const char *ctrl_phase_shown(const char *phase);
/* Succeeded, Stopped or Failed: nothing runs or will run. */
bool ctrl_phase_done(enum ctrl_phase p);

#endif
