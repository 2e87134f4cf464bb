/* The limiting class of a sweep step from its wait events (see stepclass.h). */
#include "pkg/bench/stepclass.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name, *words;
} classes[BENCH_NCLS + 1] = {
    [BENCH_CLS_CLIENT] = {"client", "the client"},
    [BENCH_CLS_SERVER_CPU] = {"server-cpu", "server CPU"},
    [BENCH_CLS_STORAGE_READS] = {"storage-reads", "storage reads"},
    [BENCH_CLS_WAL_FLUSH] = {"wal-flush", "WAL flush"},
    [BENCH_CLS_LOCK] = {"row-contention", "row or lock contention"},
    [BENCH_CLS_LWLOCK] = {"lwlock", "internal contention (LWLock)"},
    [BENCH_CLS_SYNC_REP] = {"sync-replication", "synchronous replication"},
    [BENCH_CLS_IO_OTHER] = {"io-other", "other I/O"},
    [BENCH_CLS_OTHER] = {"other", "other waits"},
    [BENCH_CLS_INCONCLUSIVE] = {"inconclusive", "nothing measured"},
};

const char *bench_step_cls_name(enum bench_step_cls c)
{
    return classes[c <= BENCH_NCLS ? c : BENCH_NCLS].name;
}

const char *bench_step_cls_words(enum bench_step_cls c)
{
    return classes[c <= BENCH_NCLS ? c : BENCH_NCLS].words;
}

enum bench_step_cls bench_step_cls_parse(const char *name)
{
    for (int c = 0; name && c < BENCH_NCLS; c++)
        if (strcmp(name, classes[c].name) == 0)
            return (enum bench_step_cls)c;
    return BENCH_CLS_INCONCLUSIVE;
}

static bool prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* The class of one wait_event_type:wait_event (CPU: active without a wait event). */
static enum bench_step_cls event_class(const char *e)
{
    if (prefix(e, "Client:"))
        return BENCH_CLS_CLIENT;
    if (strcmp(e, "CPU") == 0)
        return BENCH_CLS_SERVER_CPU;
    if (prefix(e, "IO:WAL") || strcmp(e, "LWLock:WALWrite") == 0)
        return BENCH_CLS_WAL_FLUSH;
    if (strcmp(e, "IO:DataFileRead") == 0)
        return BENCH_CLS_STORAGE_READS;
    if (prefix(e, "IO:"))
        return BENCH_CLS_IO_OTHER;
    if (prefix(e, "Lock:"))
        return BENCH_CLS_LOCK;
    if (prefix(e, "LWLock:"))
        return BENCH_CLS_LWLOCK;
    if (strcmp(e, "IPC:SyncRep") == 0)
        return BENCH_CLS_SYNC_REP;
    return BENCH_CLS_OTHER;
}

double bench_step_db_share(const struct bench_step_class *s, enum bench_step_cls c)
{
    double db = 0;
    for (int k = 0; k < BENCH_NCLS; k++)
        if (k != BENCH_CLS_CLIENT)
            db += s->pct[k];
    if (c >= BENCH_NCLS || c == BENCH_CLS_CLIENT || !(db > 0))
        return NAN;
    return 100.0 * s->pct[c] / db;
}

void bench_step_classify(const struct bench_wait_share *w, int nw, int rounds,
                         struct bench_step_class *out)
{
    memset(out, 0, sizeof(*out));
    out->cls = BENCH_CLS_INCONCLUSIVE;
    out->rounds = rounds;
    out->weak = rounds < BENCH_STEP_MIN_ROUNDS;
    double top[BENCH_NCLS] = {0};
    int top_at[BENCH_NCLS];
    for (int i = 0; i < nw; i++) {
        enum bench_step_cls c = event_class(w[i].event);
        out->pct[c] += w[i].pct;
        if (w[i].pct > top[c]) {
            top[c] = w[i].pct;
            top_at[c] = i;
        }
    }
    double all = 0;
    for (int c = 0; c < BENCH_NCLS; c++)
        all += out->pct[c];
    if (!(all > 0))
        return;
    enum bench_step_cls best = BENCH_CLS_CLIENT;
    if (out->pct[BENCH_CLS_CLIENT] < 50) {
        best = BENCH_CLS_SERVER_CPU;
        for (int c = 0; c < BENCH_NCLS; c++)
            if (c != BENCH_CLS_CLIENT && out->pct[c] > out->pct[best])
                best = (enum bench_step_cls)c;
    }
    if (!(out->pct[best] > 0))
        return;
    out->cls = best;
    (void)snprintf(out->event, sizeof(out->event), "%s", w[top_at[best]].event);
    out->share = best == BENCH_CLS_CLIENT ? out->pct[best] : bench_step_db_share(out, best);
}
