/* The start barrier's margin, learned from the runners' notice delays (margin.h). */
#include "pkg/controller/margin.h"

#include <math.h>
#include <stdio.h>

void ctrl_margin_record(struct ctrl_margin *m, double notice_s)
{
    if (!(notice_s > 0) || !isfinite(notice_s))
        return;
    m->notice_s[m->next] = notice_s;
    m->next = (m->next + 1) % CTRL_MARGIN_WINDOW;
    if (m->n < CTRL_MARGIN_WINDOW)
        m->n++;
}

void ctrl_margin_record_write(struct ctrl_margin *m, double seconds)
{
    if (!(seconds >= 0) || !isfinite(seconds))
        return;
    m->write_s[m->next_write] = seconds;
    m->next_write = (m->next_write + 1) % CTRL_MARGIN_WRITES;
    if (m->n_writes < CTRL_MARGIN_WRITES)
        m->n_writes++;
}

/* The write assumed, ms: before any run was measured the slowest recent one (at least
 * CTRL_START_WRITE_MIN_MS), then CTRL_START_WRITE_MIN_MS (the runs' notices hold the writes). */
static double slowest_write_ms(const struct ctrl_margin *m)
{
    double write_ms = CTRL_START_WRITE_MIN_MS;
    for (int i = 0; i < m->n_writes && m->n == 0; i++)
        write_ms = fmax(write_ms, m->write_s[i] * 1000.0);
    return write_ms;
}

/* The notice delay assumed before runs were measured (margin.h), in ms. */
static double assumed_notice_ms(const struct ctrl_margin *m)
{
    if (m->n_writes == 0)
        return CTRL_START_MARGIN_COLD_MS - CTRL_START_SLACK_MS;
    return CTRL_START_REFRESH_MS + 2 * slowest_write_ms(m);
}

void ctrl_margin_describe(const struct ctrl_margin *m, char *out, size_t len)
{
    if (!m || (m->n == 0 && m->n_writes == 0))
        (void)snprintf(out, len, "no write answered yet: the default");
    else
        (void)snprintf(out, len,
                       "%d run%s measured; assumed before %d: %d ms refresh + 2 x %.0f ms writes "
                       "+ %d ms",
                       m->n, m->n == 1 ? "" : "s", CTRL_MARGIN_TRUST_RUNS, CTRL_START_REFRESH_MS,
                       ceil(slowest_write_ms(m)), CTRL_START_SLACK_MS);
}

long ctrl_margin_ms(const struct ctrl_margin *m)
{
    if (!m)
        return CTRL_START_MARGIN_COLD_MS;
    double worst_ms = 0;
    for (int i = 0; i < m->n; i++)
        worst_ms = fmax(worst_ms, m->notice_s[i] * 1000.0);
    if (m->n < CTRL_MARGIN_TRUST_RUNS)
        worst_ms = fmax(worst_ms, assumed_notice_ms(m));
    if (m->n == 0) /* never later than the fixed default of before */
        worst_ms = fmin(worst_ms, CTRL_START_MARGIN_COLD_MS - CTRL_START_SLACK_MS);
    long ms = (long)ceil(worst_ms) + CTRL_START_SLACK_MS;
    if (ms < CTRL_START_MARGIN_MIN_MS)
        return CTRL_START_MARGIN_MIN_MS;
    return ms > CTRL_START_MARGIN_MAX_MS ? CTRL_START_MARGIN_MAX_MS : ms;
}
