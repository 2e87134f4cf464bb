/* kubectl-pgbench: what `run` and `sweep` share: the TARGET, workload and common flags, the
 * BenchmarkRun they build (pkg/plugin/build.h), printing and creating objects. */
#ifndef PGBO_KUBECTL_PGBENCH_RUN_H
#define PGBO_KUBECTL_PGBENCH_RUN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "pkg/plugin/build.h"
#include "pkg/plugin/target.h"
#include "plugin.h"

enum dry { DRY_NONE, DRY_CLIENT, DRY_SERVER };

/* What to do with the objects built: --dry-run, -o, --wait. */
struct act {
    struct args *a;
    struct kc_flags kf;
    enum dry dry;
    const char *output; /* yaml, json, name */
    bool wait;
    long wait_timeout_s; /* 0: none */
    long poll_ms;
};

/* `run`'s command line, as read so far, and what it opened. */
struct run_cli {
    struct act *x;
    struct plugin_run_opts ro;
    struct plugin_target_opts to;
    const char *distro_flag, *arch;
    bool init;
    bool init_opts; /* a pgbench -i option beside -s was given (needs --init) */
    int ndistro;
    char ns[254], name[64];
    struct kc k; /* open when open is true (not with --dry-run=client) */
    bool open;
};

void run_cli_init(struct run_cli *r, struct act *x, struct args *a);
/* One of run's flags at argv[i] (TARGET, --init..., --name, --workers, --dry-run, --wait, ...; "--"
 * takes the rest as pgbench's): advances and returns true. Dies on a bad value or a positional
 * argument; false for a flag it does not know. */
bool run_cli_flag(struct run_cli *r);
/* Checks the flags' combinations, opens the cluster (not for --dry-run=client), resolves the
 * target, and builds the BenchmarkRun (default name <name_prefix>-YYYYMMDD-HHMMSS) into *out.
 * Returns 0 or an exit code, having printed why. */
int run_cli_build(struct run_cli *r, const char *name_prefix, cJSON **out);
void run_cli_free(struct run_cli *r);

/* Prints objs as -o says (yaml documents, a json List, or kind/name lines). */
void act_print(struct act *x, cJSON *objs);
/* Creates obj (dry: dryRun=All) and returns the server's object in *out; 0 or an exit code. */
int act_create(struct kc *k, const cJSON *obj, bool dry, cJSON **out);

#endif
