/* kubectl-pgbench: `kubectl pgbench` — run pgbench and fio as BenchmarkRuns, follow them, compare
 * and export their results. kubectl finds this program on PATH by its name. Option parsing,
 * wiring and exit codes (plugin.h); the BenchmarkRun comes from pkg/plugin, the children from the
 * operator's own manifest code. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/api/manifest.h"
#include "pkg/util/log.h"
#include "pkg/util/version.h"
#include "pkg/util/json.h"
#include "plugin.h"

/* The commands, in the overview's order: name, arguments, what it does. */
static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *args, *what;
} cmds[] = {
    {"run", cmd_run, "TARGET [flags] -- PGBENCH-ARGS",
     "a pgbench BenchmarkRun (pgbench's own options after --)"},
    {"sweep", cmd_sweep, "TARGET --clients 1,2,4,8 [flags] -- PGBENCH-ARGS",
     "a BenchmarkSweep: one run per value"},
    {"fio", cmd_fio, "NAME --storage-class SC [flags]", "fio on a new volume of the StorageClass"},
    {"compare", cmd_compare, "A B [C...] [flags]",
     "settings (differences marked *) and results; runs or sweeps"},
    {"export", cmd_export, "NAME... -o json|yaml|csv [flags]", "results as JSON, YAML or CSV"},
    {"logs", cmd_logs, "NAME [-f] [--raw]",
     "every worker's log, each line prefixed with its index"},
    {"report", cmd_report, "NAME|sweep/NAME [-o FILE.html]",
     "one self-contained HTML page with plots"},
    {"version", cmd_version, "", "the plugin's, the operator's and the CRDs' versions"},
};

/* The overview: the commands from the table, then what every command shares. */
static void usage(FILE *f)
{
    struct buf b = BUF_INIT(0);
    (void)buf_puts(&b, "usage: kubectl pgbench COMMAND [flags]\n\n");
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char left[128];
        (void)snprintf(left, sizeof(left), "%s %s", cmds[i].name, cmds[i].args);
        if (strlen(left) > 36)
            (void)buf_printf(&b, "  %s\n  %-36s %s\n", left, "", cmds[i].what);
        else
            (void)buf_printf(&b, "  %-36s %s\n", left, cmds[i].what);
    }
    (void)buf_puts(
        &b, "\n"
            "kubectl's flags on every command, before or after it: --kubeconfig PATH, --context "
            "NAME,\n-n/--namespace NS.\n"
            "`kubectl pgbench COMMAND --help` shows a command's flags; docs/plugin.md has them "
            "all.\n"
            "`kubectl pgbench --version` prints the version and commit (`version`: the operator's "
            "and\nthe CRDs' too).\n"
            "Exit codes: 0 ok, 1 usage or refused flag, 2 cluster error, 3 run failed or threshold "
            "crossed.\n");
    (void)fputs(b.data, f);
    buf_free(&b);
}

static const char *cmd_name = "";

void emit(const char *s, size_t len)
{
    if (len && fwrite(s, 1, len, stdout) != len)
        exit(EXIT_CLUSTER);
}

void die_usage(const struct args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)fprintf(stderr, "kubectl pgbench %s: ", a ? a->cmd : cmd_name);
    (void)vfprintf(stderr, fmt, ap);
    (void)fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_USAGE);
}

int get_object(struct kc *k, const struct kube_resource *res, const char *name, cJSON **out)
{
    struct kc_reply r;
    *out = NULL;
    if (kc_call(k, KC_GET, res, name, NULL, NULL, &r) != 0) {
        (void)fprintf(stderr, "kubectl pgbench: cannot send the request\n");
        return EXIT_CLUSTER;
    }
    if (!kube_ok(&r.st)) {
        char kind[64], msg[600];
        size_t i = 0;
        for (; res->kind[i] && i + 1 < sizeof(kind); i++)
            kind[i] = (char)tolower((unsigned char)res->kind[i]);
        kind[i] = '\0';
        kc_describe(&r.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench: %s %s in namespace %s: %s\n", kind, name, k->ns,
                      msg);
        kc_reply_free(&r);
        return EXIT_CLUSTER;
    }
    *out = r.body;
    r.body = NULL;
    kc_reply_free(&r);
    return 0;
}

int get_run(struct kc *k, const char *name, cJSON **out)
{
    return get_object(k, &API_BENCHMARKRUNS, name, out);
}

/* An unknown command: cobra's message and its suggestions (a distance of at most 2, or a
 * command the word begins), then the usage. */
static int unknown_command(const char *word)
{
    (void)fprintf(stderr, "kubectl pgbench: unknown command \"%s\"\n", word);
    bool any = false;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        size_t lw = strlen(word);
        if (util_opt_distance(word, cmds[i].name) <= 2 ||
            (lw && strncmp(cmds[i].name, word, lw) == 0)) {
            (void)fprintf(stderr, "%s\t%s\n", any ? "" : "\nDid you mean this?\n", cmds[i].name);
            any = true;
        }
    }
    (void)fputc('\n', stderr);
    usage(stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    util_json_init(); /* first: every cJSON call after it is total (json.h) */
    log_set_level(getenv("KUBECTL_PGBENCH_DEBUG") ? LOG_DEBUG : LOG_ERROR);
    log_set_format(LOG_FORMAT_TEXT);
    /* kubectl's flags may come before the command (kubectl pgbench -n ns report x): they are
     * moved after it, where every command's parser takes them */
    struct kc_flags ignored = {0};
    struct util_opt_set kube = flag_kube_set(&ignored);
    struct util_opt_parse p = {.sets = &kube, .nsets = 1, .stop_at_word = true};
    char err[512];
    cmd_name = "";
    int rc = util_opt_parse(&p, argc, argv, err, sizeof(err));
    if (rc == UTIL_OPT_HELP || (rc == 0 && p.next < argc && strcmp(argv[p.next], "help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (rc == -ENOENT && strcmp(argv[p.bad], "--version") == 0) {
        char line[256];
        (void)puts(util_version_line(line, sizeof(line), "kubectl-pgbench"));
        return 0;
    }
    if (rc) {
        (void)fprintf(stderr, "kubectl pgbench: %s (see kubectl pgbench --help)\n", err);
        return EXIT_USAGE;
    }
    if (p.next >= argc || p.dashes) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (p.next > 1) {
        char *cmd = argv[p.next];
        memmove(argv + 2, argv + 1, (size_t)(p.next - 1) * sizeof(*argv));
        argv[1] = cmd;
    }
    cmd_name = argv[1];
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(argv[1], cmds[i].name) == 0) {
            rc = cmds[i].fn(argc - 1, argv + 1);
            if (fflush(stdout) != 0)
                return EXIT_CLUSTER;
            return rc;
        }
    return unknown_command(argv[1]);
}
