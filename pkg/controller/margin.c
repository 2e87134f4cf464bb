/* The start barrier's margin, learned from the runners' notice delays (margin.h). */
#include "pkg/controller/margin.h"

#include <math.h>

void ctrl_margin_record(struct ctrl_margin *m, double notice_s)
{
    if (!(notice_s > 0) || !isfinite(notice_s))
        return;
    m->notice_s[m->next] = notice_s;
    m->next = (m->next + 1) % CTRL_MARGIN_WINDOW;
    if (m->n < CTRL_MARGIN_WINDOW)
        m->n++;
}

long ctrl_margin_ms(const struct ctrl_margin *m)
{
    double worst_ms = 0;
    for (int i = 0; m && i < m->n; i++)
        worst_ms = fmax(worst_ms, m->notice_s[i] * 1000.0);
    if (!m || m->n < CTRL_MARGIN_TRUST_RUNS)
        worst_ms = fmax(worst_ms, CTRL_START_NOTICE_DEFAULT_MS);
    long ms = (long)ceil(worst_ms) + CTRL_START_SLACK_MS;
    if (ms < CTRL_START_MARGIN_MIN_MS)
        return CTRL_START_MARGIN_MIN_MS;
    return ms > CTRL_START_MARGIN_MAX_MS ? CTRL_START_MARGIN_MAX_MS : ms;
}
