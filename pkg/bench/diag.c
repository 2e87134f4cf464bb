/* A result's diagnostics as the sentences status shows, and the wait-event sentence's reader. */
#include "pkg/bench/diag.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/buf.h"
#include "pkg/util/mem.h"

/* ---- numbers as a person reads them ------------------------------------------------------ */

#define NUMLEN 48

/* v to that many decimals without trailing zeros: 55.7, 7, 0.5. Returns out. */
static const char *num_s(char *out, double v, int decimals)
{
    int n = snprintf(out, NUMLEN, "%.*f", decimals, v);
    if (n > 0 && n < NUMLEN && strchr(out, '.')) {
        while (n > 0 && out[n - 1] == '0')
            out[--n] = '\0';
        if (n > 0 && out[n - 1] == '.')
            out[--n] = '\0';
    }
    if (strcmp(out, "-0") == 0)
        (void)snprintf(out, NUMLEN, "0");
    return out;
}

/* Three significant digits, no exponent: 0.292, 1.5, 37.4, 128, 8000. */
static const char *sig3_s(char *out, double v)
{
    double a = fabs(v);
    return num_s(out, v, a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 0.9995 ? 2 : 3);
}

/* Bytes in binary units: 37.4 MiB, 128 MiB, 1.5 GiB, 512 B. */
static const char *bytes_s(char *out, double v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t u = 0;
    char n[NUMLEN];
    while (fabs(v) >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024;
        u++;
    }
    (void)snprintf(out, NUMLEN, "%s %s", sig3_s(n, v), units[u]);
    return out;
}

/* "1 round", "52 rounds". */
static const char *count_s(char *out, double n, const char *what)
{
    (void)snprintf(out, NUMLEN, "%.0f %s%s", n, what, n == 1 ? "" : "s");
    return out;
}

static const char *str_of(const cJSON *r, enum bench_field_id id)
{
    const cJSON *v = bench_get(r, id);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* ---- waitEvents --------------------------------------------------------------------------- */

struct share {
    const char *event;
    double pct;
};

/* Largest share first; equal shares by name, so the sentence does not depend on map order. */
static int share_cmp(const void *a, const void *b)
{
    const struct share *x = a, *y = b;
    if (x->pct != y->pct)
        return x->pct < y->pct ? 1 : -1;
    return strcmp(x->event, y->event);
}

/* The sentence of a run whose sampling never saw the load's backends (the reader knows it). */
#define NO_BACKEND "no backend of the load seen"

/* The list takes at most this many bytes; the rest of BENCH_DIAG_MAX is for the counts and the
 * sampling error. */
#define WAIT_LIST_BYTES 560

/* "Client:ClientRead 55.7 %, Lock:tuple 7 %, CPU 2 %" (and "and 3 more (0.4 %)"); returns the
 * number of events named, or -E2BIG. */
static int wait_list(struct buf *b, const cJSON *map)
{
    int total = cJSON_GetArraySize(map), n = 0, named = 0, rc = 0;
    struct share *s = util_xcalloc((size_t)total + 1, sizeof(*s));
    char x[NUMLEN];
    const cJSON *it;
    cJSON_ArrayForEach(it, map)
    {
        if (cJSON_IsNumber(it) && it->string)
            s[n++] = (struct share){it->string, it->valuedouble};
    }
    qsort(s, (size_t)n, sizeof(*s), share_cmp);
    double rest = 0;
    for (int i = 0; i < n; i++) {
        if (named < BENCH_DIAG_MAX_WAITS &&
            b->len + strlen(s[i].event) + 16 < (size_t)WAIT_LIST_BYTES)
            rc |=
                buf_printf(b, "%s%s %s %%", named++ ? ", " : "", s[i].event, num_s(x, s[i].pct, 1));
        else
            rest += s[i].pct;
    }
    if (named < n)
        rc |= buf_printf(b, " and %d more (%s %%)", n - named, num_s(x, rest, 1));
    free(s);
    return rc ? -E2BIG : named;
}

/* The shares, then "of 201 backend samples in 52 rounds", the skipped rounds, the error. */
static int wait_events(struct buf *b, const cJSON *r)
{
    double rounds = bench_num(r, BK_WAIT_EVENTS_SAMPLES);
    double backends = bench_num(r, BK_WAIT_EVENTS_BACKEND_SAMPLES);
    double skipped = bench_num(r, BK_WAIT_EVENTS_SKIPPED_TICKS);
    const char *err = str_of(r, BK_WAIT_EVENTS_ERROR);
    char x[NUMLEN];
    int named = wait_list(b, bench_get(r, BK_WAIT_EVENTS_SHARES_PCT)), rc = 0;
    if (named < 0)
        return named;
    if (named == 0)
        rc |= buf_puts(b, NO_BACKEND);
    else if (isfinite(backends))
        rc |= buf_printf(b, " of %s", count_s(x, backends, "backend sample"));
    if (isfinite(rounds))
        rc |= buf_printf(b, " in %s", count_s(x, rounds, "round"));
    if (skipped > 0)
        rc |= buf_printf(b, "; %s skipped", count_s(x, skipped, "round"));
    if (err)
        rc |= buf_printf(b, "; sampling stopped: %.300s", err);
    return rc ? -E2BIG : 0;
}

/* Where the list of a wait-event sentence ends: its counts, its remainder, or its end. */
static bool list_ends(const char *s)
{
    return !*s || strncmp(s, " of ", 4) == 0 || strncmp(s, " and ", 5) == 0 ||
           strncmp(s, " in ", 4) == 0 || *s == ';';
}

/* Items "EVENT PCT %" separated by ", "; an event may hold spaces, the number is after the last
 * one. Anything else, or a list that does not end as wait_events ends it, reads as no shares. */
int bench_diag_wait_parse(const char *s, struct bench_wait_share *out, int max)
{
    int n = 0;
    const char *p = s;
    if (!s || strncmp(s, NO_BACKEND, strlen(NO_BACKEND)) == 0)
        return 0;
    while (n < max) {
        const char *end = strstr(p, " %"), *num = end;
        while (num && num > p && num[-1] != ' ')
            num--;
        if (!end || num - 1 <= p)
            return 0;
        char *num_end;
        double pct = strtod(num, &num_end);
        if (num_end != end || !isfinite(pct))
            return 0;
        size_t len = (size_t)(num - 1 - p);
        if (len >= sizeof(out[n].event))
            len = sizeof(out[n].event) - 1;
        memcpy(out[n].event, p, len);
        out[n].event[len] = '\0';
        out[n++].pct = pct;
        end += 2;
        if (list_ends(end))
            return n;
        if (strncmp(end, ", ", 2) != 0)
            return 0;
        p = end + 2;
    }
    return n;
}

int bench_diag_wait_rounds(const char *s)
{
    const char *p = s ? strstr(s, " in ") : NULL;
    while (p) {
        char *end;
        long n = strtol(p + 4, &end, 10);
        if (end != p + 4 && (strncmp(end, " round", 6) == 0) && n >= 0 && n < 1000000000L)
            return (int)n;
        p = strstr(p + 4, " in ");
    }
    return -1;
}

/* ---- server (with the dataset check), replica, Little's law ------------------------------ */

/* ", database bench 37.4 MiB, 0.292 of shared_buffers 128 MiB" after what b has: the sizes are the
 * server's (else the dataset check's), the ratio the dataset check's (checks.dataset). */
static int server_memory(struct buf *b, const cJSON *r)
{
    const char *db = str_of(r, BK_SERVER_DATABASE);
    double size = bench_num(r, BK_SERVER_DATABASE_BYTES);
    double sb = bench_num(r, BK_SERVER_SHARED_BUFFERS_BYTES);
    double ratio = bench_num(r, BK_CHECKS_DATASET_RATIO);
    char x[NUMLEN];
    int rc = 0;
    if (!isfinite(size))
        size = bench_num(r, BK_CHECKS_DATASET_DATABASE_BYTES);
    if (!isfinite(sb))
        sb = bench_num(r, BK_CHECKS_DATASET_SHARED_BUFFERS_BYTES);
    if (db || isfinite(size))
        rc |= buf_printf(b, "%sdatabase%s%s", b->len ? ", " : "", db ? " " : "", db ? db : "");
    if (isfinite(size))
        rc |= buf_printf(b, " %s", bytes_s(x, size));
    if (!isfinite(sb))
        return rc;
    if (isfinite(size) && isfinite(ratio))
        rc |= buf_printf(b, ", %s of shared_buffers", sig3_s(x, ratio));
    else
        rc |= buf_printf(b, "%sshared_buffers", b->len ? ", " : "");
    return rc | buf_printf(b, " %s", bytes_s(x, sb));
}

/* "PostgreSQL 15.18, primary, database bench 37.4 MiB, 0.292 of shared_buffers 128 MiB"; the
 * dataset check's warning (the database fits) is the verdict's (DATASET_IN_MEMORY). */
static int server(struct buf *b, const cJSON *r)
{
    const char *ver = str_of(r, BK_SERVER_VERSION);
    const cJSON *rec = bench_get(r, BK_SERVER_IN_RECOVERY);
    int rc = 0;
    if (ver)
        rc |= buf_printf(b, "PostgreSQL %s", ver);
    if (cJSON_IsBool(rec))
        rc |= buf_printf(b, "%s%s", b->len ? ", " : "", cJSON_IsTrue(rec) ? "standby" : "primary");
    rc |= server_memory(b, r);
    if (!b->len)
        return -ENOENT;
    return rc ? -E2BIG : 0;
}

/* "primary: caught up: all standbys replayed up to 0/48CCEA8 after 0.0 s; max lag 152.8 ms
 * during the run". */
static int replica(struct buf *b, const cJSON *r)
{
    const char *role = str_of(r, BK_CHECKS_REPLICA_ROLE);
    const char *msg = str_of(r, BK_CHECKS_REPLICA_MESSAGE);
    const cJSON *caught = bench_get(r, BK_CHECKS_REPLICA_CAUGHT_UP);
    double lag = bench_num(r, BK_CHECKS_REPLICA_MAX_LAG_MS);
    char x[NUMLEN];
    int rc = 0;
    if (role)
        rc |= buf_printf(b, "%s: ", role);
    if (cJSON_IsBool(caught))
        rc |= buf_printf(b, "%s%s%.400s", cJSON_IsTrue(caught) ? "caught up" : "not caught up",
                         msg ? ": " : "", msg ? msg : "");
    else
        rc |= buf_puts(b, "no catch-up wait");
    if (isfinite(lag))
        rc |= buf_printf(b, "; max lag %s ms during the run", num_s(x, lag, 1));
    else
        rc |= buf_puts(b, "; no lag sampled during the run");
    return rc ? -E2BIG : 0;
}

/* "8 clients / 9.72 ms predict 823.4 tps; measured 821.4 tps (-0.24 %)", then the note. */
static int littles_law(struct buf *b, const cJSON *r)
{
    double clients = bench_num(r, BK_CHECKS_LITTLES_LAW_CLIENTS);
    double lat = bench_num(r, BK_CHECKS_LITTLES_LAW_LATENCY_AVG_MS);
    double pred = bench_num(r, BK_CHECKS_LITTLES_LAW_PREDICTED_TPS);
    double meas = bench_num(r, BK_CHECKS_LITTLES_LAW_MEASURED_TPS);
    double dev = bench_num(r, BK_CHECKS_LITTLES_LAW_DEVIATION_PCT);
    const char *note = str_of(r, BK_CHECKS_LITTLES_LAW_NOTE);
    char c[NUMLEN], l[NUMLEN], p[NUMLEN], m[NUMLEN];
    if (!isfinite(clients) || !isfinite(lat) || !isfinite(pred) || !isfinite(meas) ||
        !isfinite(dev))
        return -ENOENT;
    int rc = buf_printf(b, "%s / %s ms predict %s tps; measured %s tps (%+.2f %%)",
                        count_s(c, clients, "client"), num_s(l, lat, 2), num_s(p, pred, 1),
                        num_s(m, meas, 1), dev);
    if (note)
        rc |= buf_printf(b, "; %s", note);
    return rc ? -E2BIG : 0;
}

/* The verdict's sentence, as the aggregate decided it (pkg/bench/verdict.c). */
static int verdict(struct buf *b, const cJSON *r)
{
    const char *s = str_of(r, BK_VERDICT_SUMMARY);
    return !s ? -ENOENT : buf_puts(b, s) ? -E2BIG : 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

const struct bench_diag bench_diags[] = {
    {BK_STATUS_DIAGNOSTICS_WAIT_EVENTS, BK_WAIT_EVENTS, NULL, wait_events},
    {BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER, NULL, server},
    {BK_STATUS_DIAGNOSTICS_SERVER, BK_CHECKS_REPLICA, "replication: ", replica},
    {BK_STATUS_DIAGNOSTICS_VERDICT, BK_VERDICT, NULL, verdict},
    {BK_STATUS_DIAGNOSTICS_VERDICT, BK_CHECKS_LITTLES_LAW, "Little's law: ", littles_law},
};
const size_t bench_ndiags = sizeof(bench_diags) / sizeof(bench_diags[0]);

char *bench_diag_sentence(const struct bench_diag *d, const cJSON *result)
{
    if (!cJSON_IsObject(bench_get(result, d->section)))
        return NULL;
    struct buf b = BUF_INIT(BENCH_DIAG_MAX - 1);
    if (d->format(&b, result) != 0 || !b.len) {
        buf_free(&b);
        return NULL;
    }
    return buf_steal(&b);
}

void bench_diag_rows(const cJSON *result,
                     void (*put)(enum bench_field_id row, const char *sentence, void *ctx),
                     void *ctx)
{
    for (size_t i = 0; i < bench_ndiags; i++) {
        if (bench_diags[i].join)
            continue;
        struct buf b = BUF_INIT((size_t)2 * BENCH_DIAG_MAX);
        char *own = bench_diag_sentence(&bench_diags[i], result);
        if (own)
            (void)buf_puts(&b, own);
        free(own);
        for (size_t j = 0; j < bench_ndiags; j++) {
            if (!bench_diags[j].join || bench_diags[j].status != bench_diags[i].status)
                continue;
            char *s = bench_diag_sentence(&bench_diags[j], result);
            if (s)
                (void)buf_printf(&b, "%s%s%s",
                                 !b.len                     ? ""
                                 : b.data[b.len - 1] == '.' ? " "
                                                            : "; ",
                                 bench_diags[j].join, s);
            free(s);
        }
        if (b.len)
            put(bench_diags[i].status, b.data, ctx);
        buf_free(&b);
    }
}
