/* kubectl pgbench sweep: a BenchmarkSweep from run's flags and the varied field's values; print
 * it (--dry-run=client), have the API server check it (--dry-run=server), or create it and follow
 * its steps (--wait). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/api/phase.h"
#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "pkg/plugin/report_sweep.h"
#include "pkg/plugin/sweep.h"
#include "pkg/util/clock.h"
#include "plugin.h"
#include "run.h"

#define OUT_CAP (16u << 20)

static const char sweep_help[] =
    "usage: kubectl pgbench sweep TARGET [flags] --clients LIST -- [PGBENCH-ARGS] [DBNAME]\n"
    "\n"
    "A BenchmarkSweep: one BenchmarkRun per value, one at a time, then the analysis (peak, USL\n"
    "fit, latency knee, verdict) in its status. TARGET, PGBENCH-ARGS and the flags are run's\n"
    "(kubectl pgbench run --help).\n"
    "\n"
    "the varied field (one of):\n"
    "  --clients LIST   pgbench -c at each step, e.g. 1,2,4,8,16, or a range 1..64 (doubling)\n"
    "                   or 1..64x1.5 (factor 1.5)\n"
    "  --rate LIST      pgbench -R (total over workers) at each step, e.g. 500,1000,2000\n"
    "  --workers LIST   worker pods at each step, e.g. 1,2,4 (one number: every step's workers)\n"
    "flags:\n"
    "  --repeats N                     runs per step (1-10; the step's numbers are their mean)\n"
    "  --stop-when-failures-pct X      stop after a run whose failed transactions exceed X %\n"
    "  --stop-when-p99-ms Y            stop after a run whose p99 latency exceeds Y ms\n"
    "  --stop-when-aborted [N]         stop after a run with N (default 1) aborted clients\n"
    "  --name NAME                     the sweep (at most 49 characters; default\n"
    "                                  sweep-YYYYMMDD-HHMMSS); its runs are "
    "NAME-s<step>-r<repeat>\n"
    "  --dry-run=client|server  -o yaml|json|name  --wait [--wait-timeout DURATION]\n"
    "exit: 0 Succeeded or Stopped, 3 Failed (or --wait-timeout passed)\n";

static double num_arg(struct args *a, const char *flag, const char *v, double lo, double hi)
{
    char *end;
    double d = strtod(v, &end);
    if (*end || end == v || !(d >= lo && d <= hi))
        die_usage(a, "%s \"%s\": a number from %g to %g", flag, v, lo, hi);
    return d;
}

/* The varied field's flags; --workers with one number is left to run's flags. */
static bool vary_flag(struct args *a, struct plugin_sweep_opts *o)
{
    static const struct {
        const char *flag;
        enum api_sweep_field f;
    } flags[] = {{"--clients", API_SWEEP_CLIENTS},
                 {"--rate", API_SWEEP_RATE},
                 {"--workers", API_SWEEP_WORKERS}};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        int at = a->i;
        const char *v;
        if (!arg_value(a, flags[i].flag, NULL, &v))
            continue;
        if (flags[i].f == API_SWEEP_WORKERS && !plugin_vary_is_list(v)) {
            a->i = at; /* one worker count for every step */
            return false;
        }
        if (o->vary.set)
            die_usage(a, "--%s and %s: a sweep varies one field",
                      api_sweep_field_name(o->vary.field), flags[i].flag);
        char err[512];
        if (plugin_vary_parse(v, flags[i].f, flags[i].flag, &o->vary, err, sizeof(err)))
            die_usage(a, "%s", err);
        return true;
    }
    return false;
}

static bool sweep_flag(struct args *a, struct plugin_sweep_opts *o)
{
    const char *v;
    if (vary_flag(a, o))
        return true;
    if (arg_value(a, "--repeats", NULL, &v)) {
        o->repeats = (int)num_arg(a, "--repeats", v, 1, API_SWEEP_MAX_REPEATS);
        if (o->repeats != atof(v))
            die_usage(a, "--repeats \"%s\": a whole number", v);
        return true;
    }
    if (arg_value(a, "--stop-when-failures-pct", NULL, &v)) {
        o->stop_failed_pct = num_arg(a, "--stop-when-failures-pct", v, 0, 100);
        return true;
    }
    if (arg_value(a, "--stop-when-p99-ms", NULL, &v)) {
        o->stop_p99_ms = num_arg(a, "--stop-when-p99-ms", v, 0, 1e9);
        return true;
    }
    const char *s = a->argv[a->i];
    if (strncmp(s, "--stop-when-aborted", 19) == 0 && (s[19] == '\0' || s[19] == '=')) {
        o->stop_aborted =
            s[19] == '=' ? (long)num_arg(a, "--stop-when-aborted", s + 20, 1, 1e6) : 1;
        a->i++;
        return true;
    }
    return false;
}

/* ---- --wait ----------------------------------------------------------------------------- */

static int get_sweep(struct kc *k, const char *name, cJSON **out)
{
    struct kc_reply r;
    *out = NULL;
    if (kc_call(k, KC_GET, &API_BENCHMARKSWEEPS, name, NULL, NULL, &r) != 0)
        return EXIT_CLUSTER;
    if (!kube_ok(&r.st)) {
        char msg[600];
        kc_describe(&r.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench: benchmarksweep %s in namespace %s: %s\n", name,
                      k->ns, msg);
        kc_reply_free(&r);
        return EXIT_CLUSTER;
    }
    *out = r.body;
    r.body = NULL;
    kc_reply_free(&r);
    return 0;
}

static bool terminal(const char *phase)
{
    return phase && api_phase_done(api_phase_parse(phase));
}

/* Prints the steps that finished since the last call (*printed of them so far). */
static void print_steps(const cJSON *sw, int *printed, bool tty)
{
    const cJSON *steps = util_jget(sw, "status.steps");
    for (int i = *printed; i < cJSON_GetArraySize(steps); i++) {
        const cJSON *step = cJSON_GetArrayItem(steps, i);
        const char *ph = util_jstr(step, "phase");
        enum api_phase p = api_phase_parse(ph);
        if (!ph || (p != API_PHASE_SUCCEEDED && p != API_PHASE_FAILED))
            break;
        struct buf line = BUF_INIT(4096);
        (void)plugin_sweep_step_line(&line, sw, step);
        (void)printf("%s%s\n", tty ? "\r\033[K" : "", line.data ? line.data : "");
        buf_free(&line);
        *printed = i + 1;
    }
}

/* The line of the step that runs: its run's progress. */
static void progress(struct kc *k, const cJSON *sw, char *last, size_t len, bool tty)
{
    const char *run = util_jstr(sw, "status.currentRun");
    if (!run)
        return;
    cJSON *br = NULL;
    struct kc_reply r;
    if (kc_call(k, KC_GET, &API_BENCHMARKRUNS, run, NULL, NULL, &r) == 0 && kube_ok(&r.st)) {
        br = r.body;
        r.body = NULL;
    }
    kc_reply_free(&r);
    const char *field = util_jstr(sw, "status.field");
    const cJSON *v = cJSON_GetArrayItem(util_jget(sw, "status.values"),
                                        (int)util_jnum(sw, "status.currentStep", 0));
    char val[48];
    plugin_fmt_num(val, sizeof(val), cJSON_IsNumber(v) ? v->valuedouble : NAN);
    struct buf line = BUF_INIT(4096);
    (void)buf_printf(&line, "step %s %s=%s: ", util_jstr(sw, "status.stepText"),
                     field ? field : "value", val);
    if (br)
        (void)plugin_progress_line(&line, br, util_wall_s());
    else
        (void)buf_printf(&line, "%s %s", run, api_phase_name(API_PHASE_PENDING));
    if (line.data && strcmp(line.data, last) != 0) {
        (void)printf(tty ? "\r\033[K%s" : "%s\n", line.data);
        (void)fflush(stdout);
        (void)snprintf(last, len, "%s", line.data);
    }
    buf_free(&line);
    cJSON_Delete(br);
}

static int follow_sweep(struct act *x, struct kc *k, const char *name)
{
    bool tty = isatty(STDOUT_FILENO);
    double start = util_wall_s();
    char last[512] = "";
    int printed = 0, rc;
    cJSON *sw = NULL;
    for (;;) {
        cJSON_Delete(sw);
        if ((rc = get_sweep(k, name, &sw)) != 0)
            return rc;
        print_steps(sw, &printed, tty);
        if (terminal(util_jstr(sw, "status.phase")))
            break;
        progress(k, sw, last, sizeof(last), tty);
        if (x->wait_timeout_s > 0 && util_wall_s() - start > (double)x->wait_timeout_s) {
            (void)fprintf(stderr,
                          "%skubectl pgbench: benchmarksweep %s not finished after "
                          "--wait-timeout %lds\n",
                          tty ? "\n" : "", name, x->wait_timeout_s);
            cJSON_Delete(sw);
            return EXIT_RUN_FAILED;
        }
        kc_sleep(k, x->poll_ms);
    }
    if (tty)
        (void)printf("\r\033[K");
    struct buf out = BUF_INIT(OUT_CAP);
    (void)plugin_sweep_summary(&out, sw);
    emit(out.data, out.len);
    buf_free(&out);
    rc = api_phase_parse(util_jstr(sw, "status.phase")) == API_PHASE_FAILED ? EXIT_RUN_FAILED : 0;
    cJSON_Delete(sw);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------ */

static int sweep_act(struct act *x, struct kc *k, const cJSON *sw)
{
    cJSON *objs = cJSON_CreateArray(), *created = NULL;
    int rc = 0;
    if (x->dry == DRY_CLIENT) {
        cJSON_AddItemToArray(objs, cJSON_Duplicate(sw, 1));
        act_print(x, objs);
        goto out;
    }
    rc = act_create(k, sw, x->dry == DRY_SERVER, &created);
    if (rc)
        goto out;
    cJSON_AddItemToArray(objs, created);
    const char *name = util_jstr(created, "metadata.name");
    if (x->dry == DRY_SERVER || (x->output && strcmp(x->output, "name") != 0))
        act_print(x, objs);
    else
        (void)printf("benchmarksweep.pgbench.dev/%s created\n", name);
    (void)fflush(stdout);
    if (x->wait && x->dry == DRY_NONE)
        rc = follow_sweep(x, k, name);
out:
    cJSON_Delete(objs);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "sweep"};
    struct act x;
    struct run_cli r;
    struct plugin_sweep_opts so = {.stop_failed_pct = -1, .stop_p99_ms = -1};
    run_cli_init(&r, &x, &a);
    r.ro.template = true;
    while (a.i < a.argc) {
        const char *s = a.argv[a.i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            (void)fputs(sweep_help, stdout);
            return 0;
        }
        if (!sweep_flag(&a, &so) && !run_cli_flag(&r))
            die_unknown(&a);
    }
    if (!so.vary.set)
        die_usage(&a, "the varied field is required: --clients, --rate or --workers with a list "
                      "(1,2,4,8) or a range (1..64)");
    cJSON *br = NULL, *sw = NULL;
    int rc = run_cli_build(&r, "sweep", &br);
    if (!rc) {
        char err[1024];
        sw = plugin_build_sweep(br, &so, err, sizeof(err));
        if (!sw) {
            (void)fprintf(stderr, "kubectl pgbench sweep: %s\n", err);
            rc = EXIT_USAGE;
        }
    }
    if (!rc)
        rc = sweep_act(&x, r.open ? &r.k : NULL, sw);
    cJSON_Delete(sw);
    cJSON_Delete(br);
    run_cli_free(&r);
    return rc;
}

/* ---- report and compare of sweeps ------------------------------------------------------- */

bool sweep_ref(struct kc *k, const char **name)
{
    static const char *const prefixes[] = {
        "sweep/",          "sweeps/",          "bsw/",
        "benchmarksweep/", "benchmarksweeps/", "benchmarksweep.pgbench.dev/"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(*name, prefixes[i], strlen(prefixes[i])) == 0) {
            *name += strlen(prefixes[i]);
            return true;
        }
    /* a plain NAME: a BenchmarkSweep when no BenchmarkRun has it and a sweep does */
    struct kc_reply r;
    bool sweep = false;
    if (kc_call(k, KC_GET, &API_BENCHMARKRUNS, *name, NULL, NULL, &r) == 0 && r.st.http == 404) {
        struct kc_reply s;
        sweep =
            kc_call(k, KC_GET, &API_BENCHMARKSWEEPS, *name, NULL, NULL, &s) == 0 && kube_ok(&s.st);
        kc_reply_free(&s);
    }
    kc_reply_free(&r);
    return sweep;
}

int sweep_report(struct kc *k, const char *name, struct buf *out)
{
    cJSON *sw = NULL;
    int rc = get_sweep(k, name, &sw);
    if (!rc && plugin_sweep_report_html(out, sw) != 0) {
        (void)fprintf(stderr, "kubectl pgbench report: output too large\n");
        rc = EXIT_CLUSTER;
    }
    cJSON_Delete(sw);
    return rc;
}

int sweep_compare(struct kc *k, const char *const *names, size_t n, bool html, struct buf *out)
{
    cJSON *sws[PLUGIN_MAX_RUNS] = {0};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *name = names[i];
        (void)sweep_ref(k, &name);
        rc = get_sweep(k, name, &sws[i]);
    }
    char err[600] = "output too large";
    if (!rc &&
        (html ? plugin_sweep_compare_html(out, (const cJSON *const *)sws, n, err, sizeof(err))
              : plugin_sweep_compare(out, (const cJSON *const *)sws, n, err, sizeof(err))) != 0) {
        (void)fprintf(stderr, "kubectl pgbench compare: %s\n", err);
        rc = EXIT_USAGE;
    }
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(sws[i]);
    return rc;
}
