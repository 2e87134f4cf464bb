/* The operator's command line: the flag table and the parser and help text made from it. */
#include "pkg/controller/cmdline.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/buf.h"

enum row_kind {
    ROW_STRING, /* const char * field, borrowed from argv */
    ROW_FLAG,   /* no argument: bool field set to true */
    ROW_INT,    /* int field, decimal in [lo, hi] */
    ROW_LONG,   /* long field, decimal in [lo, hi] */
    ROW_CHOICE, /* const char * field, one of the words in choices */
};

struct row {
    const char *name; /* long name without "--" */
    enum row_kind kind;
    size_t off; /* the field in struct ctrl_cmdline */
    long lo, hi;
    const char *const *choices; /* ROW_CHOICE: NULL-terminated */
    const char *metavar;        /* the argument in the help text */
    const char *expect;         /* "--x: expected <expect>, got 'v'" */
    const char *help;
};

#define F(f) offsetof(struct ctrl_cmdline, f)
static const char *const log_levels[] = {"debug", "info", "warn", "error", NULL};
static const char *const log_formats[] = {"json", "text", NULL};

static const struct row rows[] = {
    {"kubeconfig", ROW_STRING, F(kubeconfig), 0, 0, NULL, "PATH", NULL,
     "kubeconfig (default: in-cluster, else $KUBECONFIG, ~/.kube/config)"},
    {"context", ROW_STRING, F(context), 0, 0, NULL, "NAME", NULL,
     "kubeconfig context (default: current-context)"},
    {"namespace", ROW_STRING, F(copt.namespace), 0, 0, NULL, "NS", NULL,
     "watch one namespace (default: all namespaces)"},
    {"runner-image", ROW_STRING, F(copt.cfg.runner_image), 0, 0, NULL, "IMAGE", NULL,
     "default runner image (default ghcr.io/pgbench-operator/runner:<version>)"},
    {"runner-command", ROW_STRING, F(copt.cfg.runner_command), 0, 0, NULL, "PATH", NULL,
     "runner path inside the image (default /usr/local/bin/pgbench-runner)"},
    {"start-delay", ROW_LONG, F(copt.cfg.start_delay_s), 0, 3600, NULL, "S", "0 to 3600 seconds",
     "time the run's pods get to become ready, added to its deadline (10)"},
    {"progress-interval", ROW_LONG, F(copt.cfg.progress_interval_s), 0, 3600, NULL, "S",
     "0 (off) to 3600 seconds", "status.progress while a run goes, every S seconds (10; 0 = off)"},
    {"metrics-addr", ROW_STRING, F(metrics_addr), 0, 0, NULL, "ADDR", NULL,
     "/healthz /readyz /metrics listen address (default :8080; 0 = off)"},
    {"leader-elect", ROW_FLAG, F(leader_elect), 0, 0, NULL, NULL, NULL,
     "elect a leader with a coordination.k8s.io/v1 Lease"},
    {"lease-name", ROW_STRING, F(lease_name), 0, 0, NULL, "NAME", NULL,
     "Lease name (default pgbench-operator)"},
    {"lease-namespace", ROW_STRING, F(lease_ns), 0, 0, NULL, "NS", NULL,
     "Lease namespace (default: the kubeconfig's namespace)"},
    {"lease-duration", ROW_INT, F(lease_duration_s), 2, 3600, NULL, "S", "2 to 3600 seconds",
     "Lease duration (default 15)"},
    {"log-level", ROW_CHOICE, F(log_level), 0, 0, log_levels, "LEVEL", "debug, info, warn or error",
     "debug, info, warn, error (default info)"},
    {"log-format", ROW_CHOICE, F(log_format), 0, 0, log_formats, "FORMAT", "json or text",
     "json or text (default json)"},
    {"workers", ROW_INT, F(copt.workers), 1, 256, NULL, "N", "1 to 256",
     "concurrent reconciles (default 8)"},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
#define ROW_VAL 256 /* getopt_long's value of row i: ROW_VAL + i, clear of '?', ':' and 'h' */
#define FIELD(o, off, type) ((type *)(void *)((char *)(o) + (off)))

void ctrl_cmdline_defaults(struct ctrl_cmdline *o)
{
    memset(o, 0, sizeof(*o));
    o->metrics_addr = ":8080";
    o->lease_name = "pgbench-operator";
    o->lease_duration_s = 15;
    o->log_level = "info";
    o->log_format = "json";
    o->copt.workers = 8;
    api_config_defaults(&o->copt.cfg);
}

/* Stores the value of row r; -EINVAL with the message when it is out of range. */
static int set_row(const struct row *r, const char *v, struct ctrl_cmdline *o, char *err,
                   size_t errlen)
{
    char *end = NULL;
    long n = 0;
    switch (r->kind) {
    case ROW_STRING:
        *FIELD(o, r->off, const char *) = v;
        return 0;
    case ROW_FLAG:
        *FIELD(o, r->off, bool) = true;
        return 0;
    case ROW_CHOICE:
        for (const char *const *c = r->choices; *c; c++) {
            if (strcmp(*c, v) == 0) {
                *FIELD(o, r->off, const char *) = *c;
                return 0;
            }
        }
        break;
    case ROW_INT:
    case ROW_LONG:
        errno = 0;
        n = strtol(v, &end, 10);
        if (errno || end == v || *end || n < r->lo || n > r->hi)
            break;
        if (r->kind == ROW_INT)
            *FIELD(o, r->off, int) = (int)n;
        else
            *FIELD(o, r->off, long) = n;
        return 0;
    }
    (void)snprintf(err, errlen, "--%s: expected %s, got '%s'", r->name, r->expect, v);
    return -EINVAL;
}

/* The message for what getopt_long refused: argv[optind - 1] is the word it stopped at. */
static int refused(int argc, char **argv, int opt, char *err, size_t errlen)
{
    const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (opt >= ROW_VAL && (size_t)(opt - ROW_VAL) < NROWS)
        (void)snprintf(err, errlen, "--%s: needs a value (%s)", rows[opt - ROW_VAL].name,
                       rows[opt - ROW_VAL].metavar);
    else if (strncmp(word, "--", 2) == 0 && strchr(word, '=')) {
        size_t len = (size_t)(strchr(word, '=') - word) - 2;
        for (size_t i = 0; i < NROWS; i++) {
            if (strlen(rows[i].name) == len && strncmp(rows[i].name, word + 2, len) == 0) {
                (void)snprintf(err, errlen, "--%s: takes no value", rows[i].name);
                return -EINVAL;
            }
        }
        (void)snprintf(err, errlen, "unknown flag %.*s", (int)(len + 2), word);
    } else
        (void)snprintf(err, errlen, "unknown flag %s", word);
    return -EINVAL;
}

int ctrl_cmdline_parse(int argc, char **argv, struct ctrl_cmdline *o, char *err, size_t errlen)
{
    struct option longopts[NROWS + 3];
    for (size_t i = 0; i < NROWS; i++)
        longopts[i] = (struct option){rows[i].name,
                                      rows[i].kind == ROW_FLAG ? no_argument : required_argument,
                                      NULL, ROW_VAL + (int)i};
    longopts[NROWS] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[NROWS + 1] = (struct option){"version", no_argument, NULL, 'V'};
    longopts[NROWS + 2] = (struct option){NULL, 0, NULL, 0};
    ctrl_cmdline_defaults(o);
    if (errlen)
        *err = '\0';
    optind = 0; /* GNU: start over, also after an earlier parse */
    opterr = 0;
    int ch;
    /* a leading ':' makes getopt tell a missing value (':') from an unknown flag ('?') */
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (ch == 'h')
            return CTRL_CMDLINE_HELP;
        if (ch == 'V')
            return CTRL_CMDLINE_VERSION;
        if (ch == ':')
            return refused(argc, argv, optopt, err, errlen);
        if (ch < ROW_VAL || (size_t)(ch - ROW_VAL) >= NROWS)
            return refused(argc, argv, -1, err, errlen);
        int rc = set_row(&rows[ch - ROW_VAL], optarg, o, err, errlen);
        if (rc)
            return rc;
    }
    if (optind < argc) {
        (void)snprintf(err, errlen, "unexpected argument %s", argv[optind]);
        return -EINVAL;
    }
    return 0;
}

int ctrl_cmdline_usage(struct buf *out)
{
    int rc = buf_puts(out, "usage: pgbench-operator [options]\n");
    for (size_t i = 0; i < NROWS && !rc; i++) {
        char flag[64];
        const struct row *r = &rows[i];
        (void)snprintf(flag, sizeof(flag), "--%s%s%s", r->name, r->metavar ? " " : "",
                       r->metavar ? r->metavar : "");
        rc = buf_printf(out, "  %-22s %s\n", flag, r->help);
    }
    if (!rc)
        rc = buf_puts(out, "  -h, --help\n  --version              print the version and commit\n");
    return rc;
}
