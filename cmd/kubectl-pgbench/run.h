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
    enum dry dry;       /* an int-sized enum: a util/opt ENUM row fills it */
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
    const char *distro_flag; /* "--host" ... (distro_buf), NULL until one is given */
    char distro_buf[32];
    const char *arch;
    bool init;
    char ns[254], name[64];
    struct kc k; /* open when open is true (not with --dry-run=client) */
    bool open;
};

void run_cli_init(struct run_cli *r, struct act *x, struct args *a);
/* The tables of run's flags over r (TARGET and the tables; then flag_act_sets'): into out (room
 * for 4), returns how many. */
size_t flag_run_sets(struct run_cli *r, struct util_opt_set *out);
/* The flags of every command that creates objects: the pods' (over c), the output and --wait (over
 * x), kubectl's (x->kf). Into out (room for 3), returns how many. */
size_t flag_act_sets(struct act *x, struct plugin_common_opts *c, struct util_opt_set *out);
/* run's words: none before "--" (pgbench's options and DBNAME go after it). */
int run_cli_word(void *ctx, const char *word, char *err, size_t errlen);
/* Takes argv[from..] as pgbench's own arguments. */
void run_cli_pgbench_args(struct run_cli *r, int from);
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
