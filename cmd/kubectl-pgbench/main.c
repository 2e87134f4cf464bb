/* kubectl-pgbench: `kubectl pgbench` — run pgbench and fio as BenchmarkRuns, follow them, compare
 * and export their results. kubectl finds this program on PATH by its name. Option parsing,
 * wiring and exit codes (plugin.h); the BenchmarkRun comes from pkg/plugin, the children from the
 * operator's own manifest code. */
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
#include "plugin.h"

static const char usage_text[] =
    "usage: kubectl pgbench COMMAND [flags]\n"
    "\n"
    "  run TARGET [flags] -- PGBENCH-ARGS   a pgbench BenchmarkRun (pgbench's own options after "
    "--)\n"
    "  sweep TARGET --clients 1,2,4,8 [flags] -- PGBENCH-ARGS   a BenchmarkSweep: one run per "
    "value\n"
    "  fio NAME --storage-class SC [--size 10Gi] [--preset wal|random-read|random-rw|all]\n"
    "  compare A B [C...] [--repeats N] [--fail-if-tps-drops PCT] [--fail-if-p99-grows PCT] "
    "[-o html [FILE.html]]\n"
    "                                       settings (differences marked *) and results; runs "
    "or sweeps\n"
    "  export NAME... -o json|yaml|csv [--table summary|timeline|statements|workers|fio]\n"
    "  logs NAME [-f] [--raw]               every worker's log, each line prefixed with its index\n"
    "  report NAME|sweep/NAME [-o FILE.html]   one self-contained HTML page with plots\n"
    "  version                              the plugin's, the operator's and the CRDs' versions\n"
    "\n"
    "kubectl's flags on every command, before or after it: --kubeconfig PATH, --context NAME,\n"
    "-n/--namespace NS.\n"
    "`kubectl pgbench COMMAND --help` shows a command's flags; docs/plugin.md has them all.\n"
    "`kubectl pgbench --version` prints the version and commit (`version`: the operator's and\n"
    "the CRDs' too).\n"
    "Exit codes: 0 ok, 1 usage or refused flag, 2 cluster error, 3 run failed or threshold "
    "crossed.\n";

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

int get_run(struct kc *k, const char *name, cJSON **out)
{
    struct kc_reply r;
    char msg[600];
    *out = NULL;
    if (kc_call(k, KC_GET, &API_BENCHMARKRUNS, name, NULL, NULL, &r) != 0) {
        (void)fprintf(stderr, "kubectl pgbench: cannot send the request\n");
        return EXIT_CLUSTER;
    }
    if (!kube_ok(&r.st)) {
        kc_describe(&r.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench: benchmarkrun %s in namespace %s: %s\n", name, k->ns,
                      msg);
        kc_reply_free(&r);
        return EXIT_CLUSTER;
    }
    *out = r.body;
    r.body = NULL;
    kc_reply_free(&r);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(int, char **);
} cmds[] = {{"run", cmd_run},       {"fio", cmd_fio},        {"compare", cmd_compare},
            {"export", cmd_export}, {"logs", cmd_logs},      {"report", cmd_report},
            {"sweep", cmd_sweep},   {"version", cmd_version}};

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
    (void)fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
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
        (void)fputs(usage_text, stdout);
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
        (void)fputs(usage_text, stderr);
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
