/* pgbench-operator: the BenchmarkRun controller. Option parsing and wiring only; the logic lives
 * in pkg/controller. One libuv loop runs the API client, informers, work queue, leader election,
 * and the probe/metrics HTTP server. Exit codes: 0 clean shutdown, 1 usage/config, 2 runtime. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "pkg/controller/cmdline.h"
#include "pkg/controller/controller.h"
#include "pkg/controller/httpd.h"
#include "pkg/controller/leader.h"
#include "pkg/controller/metrics.h"
#include "pkg/controller/sweep.h"
#include "pkg/kube/kube.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/version.h"
#include "pkg/util/json.h"

#define COMP "operator"

struct app {
    uv_loop_t *loop;
    struct kube_config *cfg;
    struct kube_client *kc;
    struct ctrl_controller *ctrl;
    struct ctrl_sweeper *sweeper; /* BenchmarkSweeps (pkg/controller/sweep.h) */
    struct ctrl_leader *leader;
    struct ctrl_httpd *http;
    uv_signal_t sigterm, sigint;
    uv_timer_t shutdown_timer;
    uv_timer_t trim_timer;
    bool leader_elect, shutting_down, started;
    int exit_code;
    struct ctrl_options copt;
    char identity[300];
    uint64_t start_failures;
};

static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
        rss = -1;
    (void)fclose(f);
    return rss < 0 ? -1 : rss * sysconf(_SC_PAGESIZE);
}

/* glibc's heap: in use (small blocks and mmapped ones), and free but held in the arenas */
static void heap_bytes(struct ctrl_metrics_source *src)
{
    struct mallinfo2 mi = mallinfo2();
    src->heap_used_bytes = (long)(mi.uordblks + mi.hblkhd);
    src->heap_free_bytes = (long)mi.fordblks;
}

static void foreach_sweep(const void *sweeps, ctrl_metrics_run_fn fn, void *ctx)
{
    ctrl_sweeper_foreach(sweeps, fn, ctx);
}

/* /metrics of this process: the controller's numbers (ctrl NULL: none runs here), the sweeps in
 * sw's cache, kc's counters and the resident memory, formatted by ctrl_metrics_format. */
static void metrics_write(struct buf *out, const struct ctrl_controller *ctrl,
                          const struct ctrl_sweeper *sw, const struct kube_client *kc, bool leader)
{
    struct ctrl_metrics_controller mc, ms;
    struct kube_client_stats st;
    struct ctrl_metrics_source src = {.leader = leader, .rss_bytes = rss_bytes()};
    heap_bytes(&src);
    if (sw) {
        src.foreach_sweep = foreach_sweep;
        src.sweeps = sw;
        ctrl_sweeper_metrics_source(sw, &ms);
        src.sweep = &ms;
    }
    if (ctrl) {
        ctrl_controller_metrics_source(ctrl, &mc);
        src.ctrl = &mc;
    }
    if (kc) {
        kube_client_stats(kc, &st);
        src.client = &st;
    }
    ctrl_metrics_format(&src, out);
}

static void http_handler(const char *method, const char *path, struct buf *body, int *code,
                         const char **ctype, void *ud)
{
    struct app *a = ud;
    (void)method;
    if (strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0) {
        buf_puts(body, "ok\n");
    } else if (strcmp(path, "/readyz") == 0) {
        /* ready: caches synced when leading; a standby (waiting for the Lease) is ready too */
        bool leading = a->started;
        if (a->shutting_down) {
            *code = 503;
            buf_puts(body, "shutting down\n");
        } else if (!leading && a->leader_elect) {
            buf_puts(body, "ok (standby)\n");
        } else if (ctrl_controller_synced(a->ctrl)) {
            buf_puts(body, "ok\n");
        } else {
            *code = 503;
            buf_puts(body, "informers not synced\n");
        }
    } else if (strcmp(path, "/metrics") == 0) {
        *ctype = CTRL_METRICS_CONTENT_TYPE;
        metrics_write(body, a->started ? a->ctrl : NULL, a->started ? a->sweeper : NULL, a->kc,
                      a->started);
    } else {
        *code = 404;
        buf_puts(body, "not found\n");
    }
}

static int start_controller(struct app *a)
{
    if (a->started || a->shutting_down)
        return 0;
    int rc = ctrl_controller_new(a->loop, a->kc, &a->copt, &a->ctrl);
    if (!rc)
        rc = ctrl_controller_start(a->ctrl);
    if (!rc)
        rc = ctrl_sweeper_new(a->loop, a->kc, a->copt.namespace, 2, ctrl_controller_events(a->ctrl),
                              &a->sweeper);
    if (!rc)
        rc = ctrl_sweeper_start(a->sweeper);
    if (rc) {
        log_error(COMP, "cannot start the controller: %s", strerror(-rc));
        return rc;
    }
    a->started = true;
    log_info(COMP, "controller started (namespace %s, %d workers)",
             a->copt.namespace && *a->copt.namespace ? a->copt.namespace : "<all>",
             a->copt.workers);
    return 0;
}

static void begin_shutdown(struct app *a, int code);

static void on_started_leading(void *ud)
{
    struct app *a = ud;
    if (start_controller(a))
        begin_shutdown(a, 2);
}

static void on_stopped_leading(void *ud)
{
    struct app *a = ud;
    /* As client-go does: a leader that lost its Lease exits and lets a fresh process campaign. */
    log_error(COMP, "leadership lost; exiting");
    begin_shutdown(a, 2);
}

static void close_walk(uv_handle_t *h, void *ud)
{
    (void)ud;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void finish_shutdown(void *ud)
{
    struct app *a = ud;
    uv_timer_stop(&a->shutdown_timer);
    uv_stop(a->loop);
}

static void on_shutdown_timeout(uv_timer_t *t)
{
    struct app *a = t->data;
    log_warn(COMP, "shutdown: gave up waiting for the Lease release");
    finish_shutdown(a);
}

static void begin_shutdown(struct app *a, int code)
{
    if (a->shutting_down)
        return;
    a->shutting_down = true;
    a->exit_code = code;
    log_info(COMP, "shutting down");
    ctrl_controller_stop(a->ctrl);
    ctrl_sweeper_stop(a->sweeper);
    uv_timer_stop(&a->trim_timer);
    uv_signal_stop(&a->sigterm);
    uv_signal_stop(&a->sigint);
    uv_timer_start(&a->shutdown_timer, on_shutdown_timeout, 3000, 0);
    if (a->leader)
        ctrl_leader_release(a->leader, finish_shutdown, a);
    else
        finish_shutdown(a);
}

/* Large list/watch bodies are parsed and freed; give the freed heap back to the system so the
 * resident size reflects what the caches hold. */
static void on_trim(uv_timer_t *t)
{
    (void)t;
    (void)malloc_trim((size_t)64 * 1024);
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct app *a = s->data;
    log_info(COMP, "received signal %d", signum);
    begin_shutdown(a, 0);
}

/* Parses the flags and sets up logging. Returns -1 to go on, else the exit code (0 after --help).
 */
static int options(int argc, char **argv, struct ctrl_cmdline *o)
{
    char err[512];
    int rc = ctrl_cmdline_parse(argc, argv, o, err, sizeof(err));
    if (rc == CTRL_CMDLINE_HELP) {
        struct buf usage = BUF_INIT(0);
        rc = ctrl_cmdline_usage(&usage);
        if (!rc)
            (void)fputs(usage.data, stdout);
        buf_free(&usage);
        return rc ? 1 : 0;
    }
    if (rc == CTRL_CMDLINE_VERSION) {
        char line[256];
        (void)puts(util_version_line(line, sizeof(line), "pgbench-operator"));
        return 0;
    }
    if (rc) {
        (void)fprintf(stderr, "pgbench-operator: %s (--help lists the flags)\n", err);
        return 1;
    }
    (void)log_flags_apply(&o->log, NULL, NULL, err, sizeof(err)); /* the rows' words: taken */
    return -1;
}

/* "<pod or host>_<16 random hex>" (ctrl_leader_identity): the Lease holder and the Events'
 * reporting instance. */
static void set_identity(struct app *a)
{
    char host[256] = "pgbench-operator";
    const char *pod = getenv("POD_NAME");
    if (pod && *pod)
        (void)snprintf(host, sizeof(host), "%s", pod);
    else
        (void)gethostname(host, sizeof(host) - 1);
    ctrl_leader_identity(a->identity, sizeof(a->identity), host);
    a->copt.cfg.instance = a->identity;
}

/* Campaigns for the Lease; the controller starts when this process leads. 0 or a negative errno. */
static int start_election(struct app *a, const struct ctrl_cmdline *o)
{
    const char *ns =
        o->lease_ns ? o->lease_ns : (a->cfg->namespace ? a->cfg->namespace : "default");
    /* The pod owns the Lease (downward API: POD_NAME, POD_NAMESPACE, POD_UID), so it goes
     * with the pod even when the release cannot be written (the Role deleted first). */
    const char *pod = getenv("POD_NAME"), *pod_ns = getenv("POD_NAMESPACE");
    const char *pod_uid = getenv("POD_UID");
    bool owned = pod && *pod && pod_uid && *pod_uid && pod_ns && strcmp(pod_ns, ns) == 0;
    if (owned)
        log_info(COMP, "lease %s/%s is owned by pod %s (uid %s)", ns, o->lease_name, pod, pod_uid);
    else if (pod && *pod)
        log_info(COMP,
                 "lease %s/%s has no owner pod (%s): it outlives the operator when not "
                 "released",
                 ns, o->lease_name,
                 !pod_uid || !*pod_uid ? "POD_UID not set"
                                       : "POD_NAMESPACE is not the lease namespace");
    int duration = o->lease_duration_s;
    struct ctrl_leader_opts lo = {
        .name = o->lease_name,
        .namespace = ns,
        .identity = a->identity,
        .owner_pod_name = owned ? pod : NULL,
        .owner_pod_uid = owned ? pod_uid : NULL,
        .lease_duration_s = duration,
        .renew_deadline_s = duration * 2 / 3,
        .retry_period_s = duration / 7 > 0 ? duration / 7 : 1,
        .on_started = on_started_leading,
        .on_stopped = on_stopped_leading,
        .ud = a,
    };
    a->leader = ctrl_leader_new(a->loop, a->kc, &lo);
    int rc = ctrl_leader_start(a->leader);
    if (rc)
        log_error(COMP, "leader election: %s", strerror(-rc));
    return rc;
}

/* Signals, the shutdown timer and the heap trimmer on a->loop. */
static void init_handles(struct app *a)
{
    uv_signal_init(a->loop, &a->sigterm);
    uv_signal_init(a->loop, &a->sigint);
    a->sigterm.data = a->sigint.data = a;
    uv_signal_start(&a->sigterm, on_signal, SIGTERM);
    uv_signal_start(&a->sigint, on_signal, SIGINT);
    uv_timer_init(a->loop, &a->shutdown_timer);
    a->shutdown_timer.data = a;
    uv_timer_init(a->loop, &a->trim_timer);
    uv_timer_start(&a->trim_timer, on_trim, 5000, 5000);
    uv_unref((uv_handle_t *)&a->trim_timer);
}

/* Cancels requests, frees caches, closes every handle and lets libuv finish. */
static void teardown(struct app *a)
{
    ctrl_sweeper_stop(a->sweeper);
    ctrl_sweeper_free(a->sweeper); /* before the controller: it sends the sweeps' Events */
    ctrl_controller_stop(a->ctrl);
    ctrl_controller_free(a->ctrl); /* requests still in flight are cancelled below */
    ctrl_leader_free(a->leader);
    ctrl_httpd_close(a->http);
    kube_client_free(a->kc);
    a->kc = NULL;
    uv_run(a->loop, UV_RUN_NOWAIT);
    uv_walk(a->loop, close_walk, NULL);
    uv_run(a->loop, UV_RUN_DEFAULT);
    uv_loop_close(a->loop);
    kube_config_free(a->cfg);
}

int main(int argc, char **argv)
{
    util_json_init(); /* first: every cJSON call after it is total (json.h) */
    struct app app;
    memset(&app, 0, sizeof(app));
    struct app *a = &app;
    struct ctrl_cmdline opt;
    int rc = options(argc, argv, &opt);
    if (rc >= 0)
        return rc;
    a->copt = opt.copt;
    a->leader_elect = opt.leader_elect;

    char err[512];
    rc = kube_config_load(opt.kubeconfig, opt.context, &a->cfg, err, sizeof(err));
    if (rc) {
        log_error(COMP, "configuration: %s", err);
        return 1;
    }
    set_identity(a);

    (void)signal(SIGPIPE, SIG_IGN);
    a->loop = uv_default_loop();
    rc = kube_client_new(a->loop, a->cfg, &a->kc);
    if (rc) {
        log_error(COMP, "API client: %s", strerror(-rc));
        kube_config_free(a->cfg);
        return 1;
    }
    log_info(COMP, "pgbench-operator starting: server %s (%s), identity %s", a->cfg->server,
             a->cfg->source ? a->cfg->source : "?", a->identity);
    init_handles(a);

    const char *metrics_addr = opt.metrics_addr;
    if (strcmp(metrics_addr, "0") != 0 && *metrics_addr) {
        rc = ctrl_httpd_start(a->loop, metrics_addr, http_handler, a, &a->http);
        if (rc) {
            log_error(COMP, "--metrics-addr %s: %s", metrics_addr, uv_strerror(rc));
            a->exit_code = 1;
            goto out;
        }
        log_info(COMP, "serving /healthz /readyz /metrics on port %d", ctrl_httpd_port(a->http));
    }
    if (a->leader_elect ? start_election(a, &opt) != 0 : start_controller(a) != 0) {
        a->exit_code = 2;
        goto out;
    }
    uv_run(a->loop, UV_RUN_DEFAULT);

out:
    teardown(a);
    log_info(COMP, "stopped");
    return a->exit_code;
}
