/* pkg/bench/fields: the result contract, written once as data.
 *
 * Every field of the runner's result JSON (docs/result-schema.md) and every result field of a
 * BenchmarkRun's status (docs/spec.md) is one row of bench_fields[]: where it sits in the result,
 * its type and unit, how the aggregate merges it across workers, whether the compact termination
 * summary keeps it, where it goes in status, and its description. From the table:
 *   - the status projection (pkg/api/status.c) copies the aggregate into status;
 *   - the compact summary (bench_result_compact) keeps the rows marked compact;
 *   - `make generate` writes the CRD's status schema, its printer columns and the field tables of
 *     docs/result-schema.md and docs/spec.md (cmd/gen), and `make test` fails when they differ;
 *   - the end-to-end contract test checks that every row marked "always" reaches status, typed;
 *   - the controllers' cache keep-lists are generated from the read-back column (enum bench_read).
 * The fields the run controller writes itself (phase, conditions, times, ...) are rows too, with no
 * result path; a BenchmarkSweep's status is the second table below (sweep_fields.def).
 *
 * Paths are dot-separated keys; "name[]" is a list whose items have the fields "name[].x". A row
 * with a NULL result path is written by the controller itself (per-worker pod, exit code, ...). A
 * row of type BF_OBJECT is copied whole; rows below it only describe its known keys. This module
 * knows nothing of Kubernetes beyond the status paths it names. */
#ifndef PGBO_BENCH_FIELDS_H
#define PGBO_BENCH_FIELDS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum bench_ftype {
    BF_SECTION, /* an object grouping other rows */
    BF_NUM,     /* number (double) */
    BF_INT,     /* integer */
    BF_BOOL,
    BF_STR,
    BF_TIME,       /* RFC 3339 string */
    BF_NUMMAP,     /* object: string -> number */
    BF_OBJECT,     /* object copied whole; known keys described by the rows below it */
    BF_LIST,       /* list of objects whose fields are the rows "path[].x" */
    BF_NUMLIST,    /* list of numbers */
    BF_STRLIST,    /* list of strings */
    BF_PHASE,      /* status.phase: a string, one of the object's phases (pkg/api/phase.h) */
    BF_INTSTR,     /* an RFC 3339 string, or an integer from an older writer (status.startAt) */
    BF_CONDITIONS, /* status.conditions: Kubernetes conditions, a list keyed by type */
    BF_INTERVAL,   /* [low, high]: two numbers, either null when open */
};

/* How bench_aggregate merges a field across workers (docs/result-schema.md, "Aggregate"). */
enum bench_merge {
    BM_NONE,      /* not merged (per-worker only, or written by the controller) */
    BM_FIRST,     /* the first worker's value */
    BM_SUM,       /* summed */
    BM_MAX,       /* the largest */
    BM_MIN,       /* the smallest */
    BM_ALL,       /* boolean AND */
    BM_ANY,       /* boolean OR */
    BM_TXMEAN,    /* mean weighted by each worker's transactionsProcessed */
    BM_POOLED,    /* pooled standard deviation (with the transaction-weighted mean) */
    BM_HIST,      /* from the merged latency histogram (exact merge) */
    BM_RECOMPUTE, /* computed again from the merged fields */
    BM_BYKEY,     /* list items matched by key, their fields merged by their own rules */
    BM_CONCAT,    /* lists concatenated (capped) */
    BM_WINDOW,    /* the workers' common window */
};

enum bench_presence {
    BP_OPTIONAL, /* present when the run produced it */
    BP_ALWAYS,   /* in status after every pgbench run that printed its report */
    BP_DIAG,     /* in status after every pgbench run with that diagnostic on (the default) */
    BP_NONZERO,  /* in status when not 0 (the result has it always): a count whose 0 says nothing
                  * that status.failed does not */
};

/* Who reads a status field back from the controllers' caches: the informers keep only these
 * (pkg/controller/cache.c, with the keep-lists `make generate` writes from the rows into
 * pkg/controller/cache_keep.h). A row read back keeps its whole value; 0: nobody reads it. */
enum bench_read {
    RB_LIVE = 1,  /* the run controller or /metrics, while the run has not ended */
    RB_DONE = 2,  /* the same, once it has ended (Succeeded or Failed) */
    RB_SWEEP = 4, /* the sweep controller, from the runs of a sweep (its run cache) */
};

struct bench_field {
    const char *path; /* in the runner's result and the aggregate; NULL: controller-written */
    enum bench_ftype type;
    const char *unit; /* "ms", "1/s", "count", ...; NULL when none */
    enum bench_merge merge;
    bool compact;       /* kept by the compact termination summary */
    const char *status; /* path in BenchmarkRun status; NULL: not projected */
    enum bench_presence presence;
    unsigned read;   /* enum bench_read flags */
    int max_items;   /* lists in status: at most this many items */
    bool downsample; /* lists in status: evenly spaced items, not the first ones */
    const char *description;
    int from; /* sweep rows of a run's entry (steps[].runs[].x): the run's status row (enum
               * bench_field_id) the entry copies when the run has finished; -1: none */
};

/* One id per row, named after its path: BK_SUMMARY_TPS is "summary.tps", BK_FIO_JOBS_READ_IOPS
 * is "fio.jobs[].read.iops"; controller-written rows are BK_STATUS_<status path>. Code names a
 * field by its id, never by its key. */
enum bench_field_id {
#define ROW(id, ...) BK_##id,
#include "pkg/bench/fields.def"
#undef ROW
    BK__COUNT
};

/* Indexed by enum bench_field_id. */
extern const struct bench_field bench_fields[];
extern const size_t bench_nfields;

/* The row whose result path (by_status false) or status path (true) is path, or NULL. */
const struct bench_field *bench_field_find(const char *path, bool by_status);

/* The rest of path after "list[]." ("fio[].readIops" under "fio" -> "readIops"), or NULL when
 * path is not an item field of that list. Borrowed from path. */
const char *bench_field_under(const char *path, const char *list);

/* The last key of a path ("summary.tps" -> "tps", "fio[].job" -> "job"). Borrowed from path. */
const char *bench_field_key(const char *path);

/* Access by id. A field is read or written at its path relative to its innermost list
 * ("fio.jobs[].read.iops" -> "read.iops" below a job), or at its whole path ("summary.tps" below
 * a result); bench_key is the last key alone, for the object that holds it. */
const char *bench_key(enum bench_field_id id);
const char *bench_rel(enum bench_field_id id);
/* The value, or NULL when absent or null. */
const cJSON *bench_get(const cJSON *o, enum bench_field_id id);
/* The number, or NAN when absent or not a number. */
double bench_num(const cJSON *o, enum bench_field_id id);
/* Sets the value (bench_json_put); takes ownership of v. Returns 0 or -EINVAL. */
int bench_put(cJSON *o, enum bench_field_id id, cJSON *v);
/* Sets the value under the row's last key directly in o (the object that holds it, e.g. a log
 * record); takes ownership of v. Returns 0 or -EINVAL (o is not an object). */
int bench_put_key(cJSON *o, enum bench_field_id id, cJSON *v);
/* The same in status, at the row's status path (relative to its list, as above). */
const cJSON *bench_status_get(const cJSON *status, enum bench_field_id id);
const char *bench_status_key(enum bench_field_id id);
/* The string at the row's status path, or NULL. Borrowed from status. */
const char *bench_status_str(const cJSON *status, enum bench_field_id id);
/* The number at the row's status path, or def when absent or not a number. */
double bench_status_num(const cJSON *status, enum bench_field_id id, double def);
/* Sets the value at the row's status path (relative to its list, as above), creating groups on
 * the way; takes ownership of v (cJSON null removes the key in a merge patch). Returns 0 or
 * -EINVAL (the row has no status path, or a segment is not an object). */
int bench_status_put(cJSON *status, enum bench_field_id id, cJSON *v);
/* Sets the row's status path to null (a merge patch removes it) when it holds a value. */
void bench_status_clear(cJSON *status, enum bench_field_id id);
/* The same for a number and a string (nothing when s is NULL). */
void bench_status_set_num(cJSON *status, enum bench_field_id id, double v);
void bench_status_set_str(cJSON *status, enum bench_field_id id, const char *s);

/* The value at a dot path below o (no "[]" segments; util_jget); NULL when absent or path empty. */
const cJSON *bench_json_at(const cJSON *o, const char *path);
/* Sets the value at a dot path below o, creating objects on the way; takes ownership of v (also
 * on failure; allocation failure aborts, pkg/util/mem.h). Returns 0 or -EINVAL (a segment is not
 * an object). */
int bench_json_put(cJSON *o, const char *path, cJSON *v);

/* Lists reduced evenly spaced (status' timeline, the result ConfigMap's timelines): keeping items
 * 0, step, 2*step, ... of n leaves at most max (max >= 1); 1 when n <= max. */
int bench_downsample_step(int n, int max);

/* Status series: a member of the result's timeline points written into status as one string of
 * numbers separated by spaces ("-" for a point without it), rounded to decimals. One row per
 * series, in the order of the string's columns; status.c writes them, readers parse them. */
struct bench_series {
    enum bench_field_id status; /* the string's status row (BK_STATUS_TIMELINE_TPS) */
    enum bench_field_id result; /* the member's result row (BK_TIMELINE_TPS) */
    int decimals;
};
extern const struct bench_series bench_timeline_series[];
extern const size_t bench_ntimeline_series;

/* The numbers of a status series string into out (at most max; NAN for "-"); returns how many
 * were read (0 for NULL). */
int bench_series_parse(const char *s, double *out, int max);
/* status' timeline series as the result's timeline (a new array of points with the members of
 * bench_timeline_series, at the result's keys), for readers that have no result; NULL when status
 * has no timeline. The caller frees it. */
cJSON *bench_series_timeline(const cJSON *status);

/* ---- BenchmarkSweep status ----
 *
 * Every field the sweep controller writes into a BenchmarkSweep's status is one row of
 * bench_sweep_fields[] (sweep_fields.def), a struct bench_field with only a status path (its
 * "result path" is NULL, merge BM_NONE). `make generate` writes the sweep CRD's status schema and
 * printer columns and docs/spec.md's sweep table from them; the controller writes and every
 * reader reads a field by its id (BSW_STEPS_TPS_MEAN), never by its key, so a row added here
 * reaches the CRD, the docs, the writer and the readers. Paths are relative to status; a field
 * is read or written relative to its innermost list ("steps[].runs[].tps" -> "tps" below a run's
 * item, "steps[].latencyMs.p99Mean" -> "latencyMs.p99Mean" below a step). */
enum bench_sweep_field_id {
#define SROW(id, ...) BSW_##id,
#include "pkg/bench/sweep_fields.def"
#undef SROW
    BSW__COUNT
};

/* Indexed by enum bench_sweep_field_id. */
extern const struct bench_field bench_sweep_fields[];
extern const size_t bench_sweep_nfields;

/* The row's path relative to its innermost list (to status at the top), and its last key. */
const char *bench_sweep_rel(enum bench_sweep_field_id id);
const char *bench_sweep_key(enum bench_sweep_field_id id);
/* The value at the row's relative path below o (a status, a step, a run's item), or NULL when
 * absent or null. */
const cJSON *bench_sweep_get(const cJSON *o, enum bench_sweep_field_id id);
/* The number, or def when absent or not a number. */
double bench_sweep_num(const cJSON *o, enum bench_sweep_field_id id, double def);
/* The string, or NULL. Borrowed from o. */
const char *bench_sweep_str(const cJSON *o, enum bench_sweep_field_id id);
/* Sets the value at the row's relative path below o, creating groups on the way; takes ownership
 * of v. Returns 0 or -EINVAL. */
int bench_sweep_put(cJSON *o, enum bench_sweep_field_id id, cJSON *v);
/* The same for a number and a string (nothing when s is NULL). */
void bench_sweep_set_num(cJSON *o, enum bench_sweep_field_id id, double v);
void bench_sweep_set_str(cJSON *o, enum bench_sweep_field_id id, const char *s);

/* Printer columns of `kubectl get benchmarkruns`, generated into the CRD. */
struct bench_column {
    const char *name;
    const char *type; /* string, integer, number, date */
    const char *json_path;
    const char *description;
    int priority; /* 1: only with -o wide */
};
extern const struct bench_column bench_columns[];
extern const size_t bench_ncolumns;
/* The same for `kubectl get benchmarksweeps`. */
extern const struct bench_column bench_sweep_columns[];
extern const size_t bench_sweep_ncolumns;

#endif
