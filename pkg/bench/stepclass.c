/* The limiting class of a sweep step from its runs' verdicts and wait events (see stepclass.h). */
#include "pkg/bench/stepclass.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

double bench_step_db_share(const struct bench_step_class *s, enum bench_verdict_class c)
{
    double db = 0;
    for (int k = 0; k < BENCH_VC__COUNT; k++)
        if (k != BENCH_VC_CLIENT)
            db += s->pct[k];
    if ((int)c < 0 || c >= BENCH_VC__COUNT || c == BENCH_VC_CLIENT || !(db > 0))
        return NAN;
    return 100.0 * s->pct[c] / db;
}

bool bench_step_verdict_evidence(const char *sentence, char *out, size_t len)
{
    static const char from[] = " limits the run: ", to[] = "; next: ",
                      undecided[] = "inconclusive: ";
    const char *a = sentence ? strstr(sentence, from) : NULL;
    const char *b = a ? strstr(a, to) : NULL;
    out[0] = '\0';
    if (sentence && strncasecmp(sentence, undecided, strlen(undecided)) == 0) {
        a = sentence + strlen(undecided);
        b = strstr(a, ". Warnings");
        if (!b)
            b = a + strlen(a);
        if (b > a && b[-1] == '.')
            b--;
    } else if (b) {
        a += strlen(from);
    } else {
        return false;
    }
    (void)snprintf(out, len, "%.*s", (int)(b - a), a);
    return out[0] != '\0';
}

void bench_step_classify(const struct bench_wait_share *w, int nw, int rounds, int run_cls,
                         const char *evidence, struct bench_step_class *out)
{
    memset(out, 0, sizeof(*out));
    out->cls = BENCH_VC_INCONCLUSIVE;
    out->share = NAN;
    out->rounds = rounds;
    out->weak = rounds < BENCH_STEP_MIN_ROUNDS;
    double top[BENCH_VC__COUNT] = {0}, all = 0;
    int top_at[BENCH_VC__COUNT]; /* the class's largest wait event; -1 when none is positive */
    for (int c = 0; c < BENCH_VC__COUNT; c++)
        top_at[c] = -1;
    for (int i = 0; i < nw; i++) {
        all += w[i].pct;
        int c = bench_verdict_wait_class(w[i].event);
        if (c < 0)
            continue;
        out->pct[c] += w[i].pct;
        if (w[i].pct > top[c]) {
            top[c] = w[i].pct;
            top_at[c] = i;
        }
    }
    enum bench_verdict_class best = BENCH_VC_INCONCLUSIVE;
    if (run_cls >= 0 && run_cls < BENCH_VC__COUNT) { /* the runs' verdict */
        best = (enum bench_verdict_class)run_cls;
        (void)snprintf(out->evidence, sizeof(out->evidence), "%s", evidence ? evidence : "");
    } else if (all > 0) { /* wait events only */
        best = BENCH_VC_CLIENT;
        if (out->pct[BENCH_VC_CLIENT] < 50) {
            best = BENCH_VC_SERVER_CPU;
            for (int c = 0; c < BENCH_VC__COUNT; c++)
                if (c != BENCH_VC_CLIENT && out->pct[c] > out->pct[best])
                    best = (enum bench_verdict_class)c;
            if (!(out->pct[best] > 0))
                best = BENCH_VC_INCONCLUSIVE;
        }
    }
    out->cls = best;
    if (best == BENCH_VC_INCONCLUSIVE || !(out->pct[best] > 0) || top_at[best] < 0)
        return;
    (void)snprintf(out->event, sizeof(out->event), "%s", w[top_at[best]].event);
    out->share =
        best == BENCH_VC_CLIENT ? 100.0 * out->pct[best] / all : bench_step_db_share(out, best);
}
