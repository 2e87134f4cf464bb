/* kubectl-pgbench: the subcommands and what they share. Exit codes: 0 ok, 1 usage or a refused
 * flag/spec, 2 the cluster refused or could not be reached, 3 the run failed (--wait) or a
 * compare threshold was crossed. */
#ifndef PGBO_KUBECTL_PGBENCH_PLUGIN_H
#define PGBO_KUBECTL_PGBENCH_PLUGIN_H

#include <stdbool.h>

#include "kc.h"
#include "pkg/util/buf.h"
#include "pkg/util/opt.h"

#define EXIT_USAGE 1
#define EXIT_CLUSTER 2
#define EXIT_RUN_FAILED 3

/* A command's words, for messages. */
struct args {
    int argc;
    char **argv;     /* argv[0] is the command */
    const char *cmd; /* "run", "fio", ... for messages */
};

/* Prints "kubectl pgbench CMD: msg" to stderr and exits EXIT_USAGE. */
void die_usage(const struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
__attribute__((noreturn));

/* ---- flags (flags.c): every command's flags are pkg/util/opt.h rows ------------------------ */

/* A command's flags: its text for --help, its tables, what it does with words and "--". */
struct cmd_flags {
    const char *usage;  /* "usage: kubectl pgbench CMD ..." and what it does, before the flags */
    const char *footer; /* after the flags, or NULL */
    struct util_opt_set *sets;
    size_t nsets;
    /* a word that is no flag (util_opt_parse's); NULL: refused */
    int (*word)(void *ctx, const char *word, char *err, size_t errlen);
    int (*before)(void *ctx, const struct util_opt *o, void **base, char *err, size_t errlen);
    void *ctx;
    bool after_dashes; /* "--" ends the flags, the rest is pgbench's (else "--" is refused) */
};

/* Parses argv[1..] into the sets (their rows' defaults first): --help prints the usage, the
 * flags by group and the footer, and exits 0; a refused flag, value or word exits EXIT_USAGE
 * with a message naming it. Returns the index after "--" (argc when none). */
int flags_parse(const struct cmd_flags *f, struct args *a);
/* kubectl's flags (--kubeconfig, --context, -n/--namespace) into kf. */
struct util_opt_set flag_kube_set(struct kc_flags *kf);
/* CALL rows: a duration (plugin_parse_duration) in [min, max] seconds into the long field at off
 * (tag FLAG_INT: an int field). */
enum { FLAG_LONG, FLAG_INT };
int flag_duration(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                  size_t errlen);

/* Gets the object name of res in k's namespace into *out (owned). Returns 0 or an exit code,
 * having printed why. get_run: a BenchmarkRun. */
int get_object(struct kc *k, const struct kube_resource *res, const char *name, cJSON **out);
int get_run(struct kc *k, const char *name, cJSON **out);
/* Writes all of s to stdout. */
void emit(const char *s, size_t len);

int cmd_run(int argc, char **argv);
int cmd_fio(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* report and compare of BenchmarkSweeps (sweep.c). sweep_ref: name is "sweep/NAME" (also bsw/,
 * benchmarksweep/...; *name is moved past the prefix), or a plain NAME that no BenchmarkRun has
 * and a BenchmarkSweep has. sweep_report and sweep_compare write the page or table into out and
 * return 0 or an exit code, having printed why. */
bool sweep_ref(struct kc *k, const char **name);
int sweep_report(struct kc *k, const char *name, struct buf *out);
int sweep_compare(struct kc *k, const char *const *names, size_t n, bool html, struct buf *out);

#endif
