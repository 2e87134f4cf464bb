/* kubectl-pgbench: the subcommands and what they share. Exit codes: 0 ok, 1 usage or a refused
 * flag/spec, 2 the cluster refused or could not be reached, 3 the run failed (--wait) or a
 * compare threshold was crossed. */
#ifndef PGBO_KUBECTL_PGBENCH_PLUGIN_H
#define PGBO_KUBECTL_PGBENCH_PLUGIN_H

#include <stdbool.h>

#include "kc.h"
#include "pkg/util/buf.h"

#define EXIT_USAGE 1
#define EXIT_CLUSTER 2
#define EXIT_RUN_FAILED 3

/* Argument cursor shared by the subcommands' parsers. */
struct args {
    int argc;
    char **argv;
    int i;
    const char *cmd; /* "run", "fio", ... for messages */
};

/* argv[i] is --long / -s with a value ("--long=v", "--long v", "-s v", "-sv"): sets *val, advances
 * and returns true. Exits with a usage error when the value is missing. */
bool arg_value(struct args *a, const char *lng, const char *shrt, const char **val);
/* argv[i] is the flag --long (or -s): advances and returns true. */
bool arg_flag(struct args *a, const char *lng, const char *shrt);
/* kubectl's connection flags (--kubeconfig, --context, -n/--namespace). */
bool arg_kube(struct args *a, struct kc_flags *f);
/* Prints "kubectl pgbench CMD: msg" to stderr and exits EXIT_USAGE. */
void die_usage(const struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
__attribute__((noreturn));
/* The "unknown flag" message. */
void die_unknown(const struct args *a) __attribute__((noreturn));

/* Gets a BenchmarkRun into *out (owned). Returns 0 or an exit code, having printed why. */
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
