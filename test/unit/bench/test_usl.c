/* The USL fit: known parameters recovered from synthetic measurements (with noise and repeats),
 * and an honest refusal for data that cannot determine three parameters. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/bench/stepclass.h"
#include "pkg/bench/usl.h"

static double usl(double l, double s, double k, double n)
{
    return l * n / (1 + s * (n - 1) + k * n * (n - 1));
}

/* deterministic noise in [-amp, amp] (a linear congruential generator, not the code under test) */
static double noise(uint32_t *seed, double amp)
{
    *seed = *seed * 1664525u + 1013904223u;
    return amp * (2.0 * (*seed >> 8) / (double)(1u << 24) - 1.0);
}

static void near(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: got %g, want %g within %.1f %%", what, got, want, rel * 100);
}

static void check_recovery(double l, double s, double k, const double *ns, size_t nn, int repeats,
                           double amp)
{
    struct bench_usl_point pts[128];
    size_t n = 0;
    uint32_t seed = 42;
    for (int r = 0; r < repeats; r++)
        for (size_t i = 0; i < nn; i++) {
            pts[n].n = ns[i];
            pts[n].x = usl(l, s, k, ns[i]) * (1 + noise(&seed, amp));
            n++;
        }
    struct bench_usl_fit f;
    bench_usl_fit(pts, n, &f);
    assert_true(f.ok);
    near(f.lambda, l, 0.02, "lambda");
    near(f.sigma, s, 0.02, "sigma");
    near(f.kappa, k, 0.02, "kappa");
    near(f.peak_n, sqrt((1 - s) / k), 0.02, "N*");
    assert_true(f.r2 > 0.99);
}

static void test_recovers_known_parameters(void **state)
{
    (void)state;
    static const double doubling[] = {1, 2, 4, 8, 16, 32, 64, 128};
    /* exact data, and 0.3 % noise with 3 repeats per step */
    check_recovery(1000, 0.05, 0.001, doubling, 8, 1, 0);
    check_recovery(1000, 0.05, 0.001, doubling, 8, 3, 0.003);
    /* a database that peaks early: strong coherency, no N = 1 measured */
    static const double sweep[] = {2, 4, 6, 8, 12, 16, 24, 32, 48};
    check_recovery(2500, 0.12, 0.004, sweep, 9, 2, 0.002);
    /* mostly contention */
    check_recovery(300, 0.3, 0.0002, doubling, 8, 1, 0);
}

static void test_not_enough_data(void **state)
{
    (void)state;
    struct bench_usl_fit f;
    /* two points */
    struct bench_usl_point two[] = {{1, 100}, {2, 190}};
    bench_usl_fit(two, 2, &f);
    assert_false(f.ok);
    assert_non_null(strstr(f.reason, "not enough data"));
    /* repeats of two concurrencies are still two */
    struct bench_usl_point rep[] = {{1, 100}, {1, 101}, {4, 350}, {4, 352}};
    bench_usl_fit(rep, 4, &f);
    assert_false(f.ok);
    assert_int_equal(f.distinct, 2);
    /* flat: the limit was reached before the first step */
    struct bench_usl_point flat[] = {{4, 1000}, {8, 1004}, {16, 998}, {32, 1001}};
    bench_usl_fit(flat, 4, &f);
    assert_false(f.ok);
    assert_non_null(strstr(f.reason, "flat"));
    /* nonsense input */
    struct bench_usl_point bad[] = {{1, 100}, {2, 0}, {4, 300}};
    bench_usl_fit(bad, 3, &f);
    assert_false(f.ok);
}

static void test_monotonic_has_no_peak(void **state)
{
    (void)state;
    /* linear scaling: no coherency to see, so no peak is predicted (not an invented one) */
    struct bench_usl_point lin[] = {{1, 100}, {2, 200}, {4, 400}, {8, 800}, {16, 1600}};
    struct bench_usl_fit f;
    bench_usl_fit(lin, 5, &f);
    assert_true(f.ok);
    assert_true(f.kappa < 1e-9);
    assert_true(isinf(f.peak_n));
    near(f.lambda, 100, 0.001, "lambda");
}

static void test_knee(void **state)
{
    (void)state;
    /* tps +90 %, +40 %, +5 % while p99 +10 %, +30 %, +60 %: the knee is the third step */
    static const double tps[] = {1000, 1900, 2660, 2793};
    static const double p99[] = {2.0, 2.2, 2.86, 4.58};
    assert_int_equal(bench_latency_knee(tps, p99, 4), 3);
    static const double flat_p99[] = {2.0, 2.0, 2.0, 2.0};
    assert_int_equal(bench_latency_knee(tps, flat_p99, 4), -1);
    static const double gap[] = {1000, NAN, 1100, 1110};
    static const double gap99[] = {2.0, NAN, 2.1, 9.0};
    assert_int_equal(bench_latency_knee(gap, gap99, 4), 3);
}

/* Three parameters through 3 or 4 concurrencies: exact (R² 1) and meaningless; not ok, and how
 * many more steps would do. */
static void test_fewer_than_five_is_no_fit(void **state)
{
    (void)state;
    struct bench_usl_point pts[5];
    for (int k = 3; k <= 5; k++) {
        for (int i = 0; i < k; i++)
            pts[i] = (struct bench_usl_point){1 << i, usl(1000, 0.05, 0.002, 1 << i)};
        struct bench_usl_fit f;
        bench_usl_fit(pts, (size_t)k, &f);
        assert_int_equal(f.distinct, k);
        if (k < 5) {
            assert_false(f.ok);
            assert_int_equal(f.steps_needed, 5 - k);
            char want[32];
            (void)snprintf(want, sizeof(want), "(%d more step", 5 - k);
            assert_non_null(strstr(f.reason, want));
        } else {
            assert_true(f.ok);
            assert_int_equal(f.steps_needed, 0);
        }
    }
}

/* Jackknife intervals: around the estimate, containing the parameters the data was made from,
 * and wider for noisier data. */
static void test_intervals(void **state)
{
    (void)state;
    static const double ns[] = {1, 2, 4, 8, 16, 32, 64};
    double width[2];
    for (int pass = 0; pass < 2; pass++) {
        struct bench_usl_point pts[21];
        uint32_t seed = 7;
        size_t n = 0;
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < 7; i++) {
                pts[n].n = ns[i];
                pts[n++].x =
                    usl(1000, 0.05, 0.002, ns[i]) * (1 + noise(&seed, pass ? 0.05 : 0.005));
            }
        struct bench_usl_fit f;
        bench_usl_fit(pts, n, &f);
        assert_true(f.ok);
        assert_true(f.sigma_ci[0] <= f.sigma && f.sigma <= f.sigma_ci[1]);
        assert_true(f.kappa_ci[0] <= f.kappa && f.kappa <= f.kappa_ci[1]);
        assert_true(f.peak_ci[0] <= f.peak_n && f.peak_n <= f.peak_ci[1]);
        double true_peak = sqrt(0.95 / 0.002);
        assert_true(f.peak_ci[0] <= true_peak && true_peak <= f.peak_ci[1]);
        assert_true(f.kappa_ci[0] <= 0.002 && 0.002 <= f.kappa_ci[1]);
        width[pass] = f.peak_ci[1] - f.peak_ci[0];
    }
    assert_true(width[1] > 2 * width[0]);
}

/* The verdict of series[] at ns[] (k steps): fitted as the sweep does, without classes. */
static void verdict_of(const double *ns, const double *xs, size_t k, char *v, size_t len)
{
    struct bench_usl_point pts[16];
    for (size_t i = 0; i < k; i++)
        pts[i] = (struct bench_usl_point){ns[i], xs[i]};
    struct bench_usl_fit f;
    bench_usl_fit(pts, k, &f);
    bench_usl_verdict(&f, ns, xs, k, NULL, v, len);
}

/* The verdict agrees with the measured curve: falling, flat, linear and retrograde series. */
static void test_verdict_follows_the_curve(void **state)
{
    (void)state;
    char v[600];
    /* falling at every step (issue 29: a real node, examples/09): 4 steps, and 5 */
    static const double n4[] = {1, 2, 4, 8}, fall4[] = {1575, 1273, 1069, 978};
    verdict_of(n4, fall4, 4, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 1 client"));
    static const double n5[] = {1, 2, 4, 8, 16}, fall5[] = {1575, 1273, 1069, 978, 940};
    verdict_of(n5, fall5, 5, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 1 client"));
    assert_null(strstr(v, "no peak"));
    /* flat within noise from the first step */
    static const double flat[] = {1000, 1006, 998, 1004, 1001};
    verdict_of(n5, flat, 5, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 1 client"));
    /* linear */
    static const double lin[] = {100, 200, 400, 800, 1600};
    verdict_of(n5, lin, 5, v, sizeof(v));
    assert_non_null(strstr(v, "scales past the largest step (16 clients)"));
    /* retrograde past a peak at sqrt(0.95 / 0.002) = 21.8 */
    static const double n7[] = {1, 2, 4, 8, 16, 32, 64};
    double retro[7];
    for (int i = 0; i < 7; i++)
        retro[i] = usl(1000, 0.05, 0.002, n7[i]);
    verdict_of(n7, retro, 7, v, sizeof(v));
    assert_non_null(strstr(v, "scales to ~22 clients"));
    /* no evidence of what limits it: not measured, not blamed on the model's terms */
    assert_non_null(strstr(v, "what limits it was not measured"));
    assert_null(strstr(v, "coherency"));
    /* retrograde from before the smallest step: the peak at 2, steps from 8 */
    static const double n8[] = {8, 16, 32, 64, 128};
    double early[5];
    for (int i = 0; i < 5; i++)
        early[i] = usl(1000, 0.1, 0.2, n8[i]);
    verdict_of(n8, early, 5, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 8 clients"));
    /* noise around a flat line (a loaded client, e2e 86): the fit explains little, and the
     * verdict says so rather than "scales" */
    static const double noisy[] = {136, 95, 133, 114, 191};
    verdict_of(n5, noisy, 5, v, sizeof(v));
    assert_non_null(strstr(v, "peak 191 tps at 16 clients"));
    assert_non_null(strstr(v, "explains little"));
    assert_null(strstr(v, "scales"));
    /* three steps rising: the measured peak, and the fit it lacks */
    static const double n3[] = {1, 2, 4}, up3[] = {500, 900, 1500};
    verdict_of(n3, up3, 3, v, sizeof(v));
    assert_non_null(strstr(v, "peak 1500 tps at 4 clients"));
    assert_non_null(strstr(v, "2 more steps"));
}

/* A fit's sigma >= 1 has no real N* (sqrt of a negative): not "no peak" but no scaling; N*
 * below the smallest step likewise, even when noise puts the measured peak later. */
static void test_verdict_fit_says_no_scaling(void **state)
{
    (void)state;
    char v[600];
    static const double n[] = {1, 2, 4, 8, 16}, x[] = {1000, 1040, 1035, 1030, 1025};
    struct bench_usl_fit f = {.ok = true,
                              .lambda = 1000,
                              .sigma = 1.45,
                              .kappa = 0,
                              .peak_n = INFINITY,
                              .peak_x = INFINITY,
                              .distinct = 5};
    bench_usl_verdict(&f, n, x, 5, NULL, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 1 client"));
    assert_non_null(strstr(v, "sigma >= 1"));
    struct bench_usl_fit g = {.ok = true,
                              .lambda = 1000,
                              .sigma = 0.1,
                              .kappa = 0.5,
                              .peak_n = sqrt(0.9 / 0.5),
                              .distinct = 5};
    static const double m[] = {2, 4, 8, 16, 32};
    bench_usl_verdict(&g, m, x, 5, NULL, v, sizeof(v));
    assert_non_null(strstr(v, "does not scale past 2 clients"));
    assert_non_null(strstr(v, "N* below the smallest step"));
}

static struct bench_step_class cls_of(const char *ev1, double p1, const char *ev2, double p2,
                                      int rounds)
{
    struct bench_wait_share w[2];
    (void)snprintf(w[0].event, sizeof(w[0].event), "%s", ev1);
    w[0].pct = p1;
    (void)snprintf(w[1].event, sizeof(w[1].event), "%s", ev2);
    w[1].pct = p2;
    struct bench_step_class c;
    bench_step_classify(w, 2, rounds, -1, NULL, &c);
    return c;
}

/* The limit named from the steps' classes: WAL flush rising past the peak; the client from the
 * first step it limits, not coherency. */
static void test_verdict_names_the_limit(void **state)
{
    (void)state;
    char v[600];
    static const double n[] = {4, 8, 16, 32, 64};
    double x[5];
    for (int i = 0; i < 5; i++)
        x[i] = usl(1000, 0.02, 0.0015, n[i]);
    struct bench_usl_point pts[5];
    for (int i = 0; i < 5; i++)
        pts[i] = (struct bench_usl_point){n[i], x[i]};
    struct bench_usl_fit f;
    bench_usl_fit(pts, 5, &f);
    assert_true(f.ok);
    struct bench_step_class wal[5] = {
        cls_of("CPU", 96, "IO:WALSync", 4, 100), cls_of("CPU", 80, "IO:WALSync", 20, 100),
        cls_of("IO:WALSync", 50, "CPU", 50, 100), cls_of("IO:WALSync", 61, "CPU", 39, 100),
        cls_of("IO:WALSync", 70, "CPU", 30, 100)};
    bench_usl_verdict(&f, n, x, 5, wal, v, sizeof(v));
    assert_non_null(strstr(v, "scales to ~"));
    assert_non_null(strstr(v, "WAL flush limits it (70 % of database wait time at 64 clients"));
    assert_non_null(strstr(v, "up from 4 % at 4"));
    /* past the peak, row locks take over from the client (e2e 87: tpcb-like at scale 1): the
     * limit under the most load is named, not the client at the step after N* */
    struct bench_step_class lk[5] = {
        cls_of("Client:ClientRead", 96, "CPU", 4, 100),
        cls_of("Client:ClientRead", 70, "Lock:transactionid", 21, 100),
        cls_of("Client:ClientRead", 71, "Lock:transactionid", 25, 100),
        cls_of("Client:ClientRead", 54, "Lock:transactionid", 44, 100),
        cls_of("Lock:transactionid", 62, "Client:ClientRead", 33, 100)};
    bench_usl_verdict(&f, n, x, 5, lk, v, sizeof(v));
    assert_non_null(strstr(v, "beyond, row or lock contention limits it"));
    assert_non_null(strstr(v, "at 64 clients, mostly Lock:transactionid"));
    struct bench_step_class cl[5] = {cls_of("CPU", 90, "Client:ClientRead", 10, 100),
                                     cls_of("CPU", 60, "Client:ClientRead", 40, 100),
                                     cls_of("Client:ClientRead", 70, "CPU", 30, 100),
                                     cls_of("Client:ClientRead", 85, "CPU", 15, 100),
                                     cls_of("Client:ClientRead", 88, "CPU", 12, 8)};
    bench_usl_verdict(&f, n, x, 5, cl, v, sizeof(v));
    assert_non_null(strstr(v, "the client (load generator) limits it from 16 clients (the server "
                              "waits for pgbench: Client:ClientRead 70 %"));
    assert_null(strstr(v, "coherency"));
    /* the runs' verdicts: their class and evidence from the first step of the run they limit */
    for (int i = 0; i < 5; i++) {
        struct bench_wait_share w[1] = {{"Client:ClientRead", 90}};
        char e[64];
        (void)snprintf(e, sizeof(e), "pgbench at %d %% of its 2-CPU limit", 80 + 4 * i);
        bench_step_classify(w, 1, 100, i >= 2 ? BENCH_VC_CLIENT : BENCH_VC_SERVER_CPU, e, &cl[i]);
    }
    bench_usl_verdict(&f, n, x, 5, cl, v, sizeof(v));
    assert_non_null(strstr(v, "the client (load generator) limits it from 16 clients (pgbench at "
                              "88 % of its 2-CPU limit); give the runner more CPU"));
}

/* Classes from wait events: Client:* at half the samples or more is the client; otherwise the
 * database class with the largest share of the database's wait time; few rounds are weak. */
static void test_step_classes(void **state)
{
    (void)state;
    struct bench_step_class c = cls_of("Client:ClientRead", 60, "CPU", 40, 100);
    assert_int_equal(c.cls, BENCH_VC_CLIENT);
    assert_true(fabs(c.share - 60) < 1e-9);
    c = cls_of("Client:ClientRead", 40, "Lock:transactionid", 45, 5);
    assert_int_equal(c.cls, BENCH_VC_ROW_LOCK);
    assert_true(fabs(c.share - 100) < 1e-9); /* all of the database's own waits */
    assert_true(c.weak);
    assert_string_equal(c.event, "Lock:transactionid");
    c = cls_of("IO:DataFileRead", 30, "LWLock:WALWrite", 50, 100);
    assert_int_equal(c.cls, BENCH_VC_WAL_FLUSH);
    assert_true(fabs(c.share - 62.5) < 1e-9);
    assert_false(c.weak);
    bench_step_classify(NULL, 0, 0, -1, NULL, &c);
    assert_int_equal(c.cls, BENCH_VC_INCONCLUSIVE);
    /* the runs' verdict decides, with its evidence; the shares stay */
    struct bench_wait_share w[1] = {{"Client:ClientRead", 91}};
    bench_step_classify(w, 1, 100, BENCH_VC_NETWORK, "3 statements of 0.9 ms round trip", &c);
    assert_int_equal(c.cls, BENCH_VC_NETWORK);
    assert_string_equal(c.evidence, "3 statements of 0.9 ms round trip");
    assert_true(isnan(c.share));
    assert_true(fabs(c.pct[BENCH_VC_CLIENT] - 91) < 1e-9);
    char ev[200];
    assert_true(bench_step_verdict_evidence("the client (load generator) limits the run: pgbench "
                                            "at 98 % of its 2-CPU limit; next: add CPU.",
                                            ev, sizeof(ev)));
    assert_string_equal(ev, "pgbench at 98 % of its 2-CPU limit");
    assert_true(bench_step_verdict_evidence("Inconclusive: the server idle 98 % of the time; would "
                                            "decide it: the runner's CPU use. Warnings: -j 4 "
                                            "above 2 CPUs (fix: -j 2)",
                                            ev, sizeof(ev)));
    assert_string_equal(ev, "the server idle 98 % of the time; would decide it: the runner's CPU "
                            "use");
    assert_false(bench_step_verdict_evidence("no verdict here", ev, sizeof(ev)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_known_parameters),
        cmocka_unit_test(test_not_enough_data),
        cmocka_unit_test(test_monotonic_has_no_peak),
        cmocka_unit_test(test_knee),
        cmocka_unit_test(test_fewer_than_five_is_no_fit),
        cmocka_unit_test(test_intervals),
        cmocka_unit_test(test_verdict_follows_the_curve),
        cmocka_unit_test(test_verdict_fit_says_no_scaling),
        cmocka_unit_test(test_verdict_names_the_limit),
        cmocka_unit_test(test_step_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
