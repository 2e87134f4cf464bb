/* The operator's command line: one table names each pgbench-operator flag once (long name,
 * type and range, default, the field it fills, its help line: pkg/util/opt.h rows); the parser,
 * the defaults and the --help text all come from it, as the runner's flags come from
 * pkg/bench/runner_args.c. cmd/operator/main.c only wires the result. */
#ifndef PGBO_CONTROLLER_CMDLINE_H
#define PGBO_CONTROLLER_CMDLINE_H

#include "pkg/controller/controller.h"

#include <stdbool.h>
#include <stddef.h>

struct ctrl_cmdline {
    const char *kubeconfig;   /* NULL: in-cluster, else $KUBECONFIG, ~/.kube/config */
    const char *context;      /* NULL: current-context */
    const char *metrics_addr; /* ":8080"; "0" = off */
    bool leader_elect;        /* elect a leader with a Lease */
    const char *lease_name;   /* "pgbench-operator" */
    const char *lease_ns;     /* NULL: the kubeconfig's namespace */
    int lease_duration_s;     /* 15 */
    const char *log_level;    /* "info": one of debug, info, warn, error */
    const char *log_format;   /* "json" or "text" */
    bool version;             /* --version */
    struct ctrl_options copt; /* namespace, workers (8), runner image/command, start delay,
                                 progress interval (api_config_defaults) */
};

/* Every field at its default. */
void ctrl_cmdline_defaults(struct ctrl_cmdline *o);

/* Parses argv (argv[0] the program) into *o (defaults first); strings are borrowed from argv.
 * Prints nothing. Returns 0; CTRL_CMDLINE_HELP when -h or --help is met, CTRL_CMDLINE_VERSION for
 * --version; -EINVAL with a message naming the flag in err for an unknown flag, a flag without
 * its value, a value out of range or a stray argument. */
#define CTRL_CMDLINE_HELP 1
#define CTRL_CMDLINE_VERSION 2
int ctrl_cmdline_parse(int argc, char **argv, struct ctrl_cmdline *o, char *err, size_t errlen);

struct buf;
/* Appends the --help text: the synopsis, then the rows by group. Returns 0, or -E2BIG when out
 * has a limit the text passes (allocation failure aborts, pkg/util/mem.h). */
int ctrl_cmdline_usage(struct buf *out);

#endif
