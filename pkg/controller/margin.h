/* pkg/controller/margin: the start barrier's margin, learned from what the runners saw.
 *
 * The barrier is published (status.readyAt, status.startAt, then the pods' annotation) once every
 * worker pod is Ready, at readyAt + margin. A runner learns it from its downwardAPI file, which
 * the kubelet rewrites some time after the pod update (0.05-1.17 s on the real v1.25 node of
 * issue 33), and records when it read it (window.seenSeconds). The margin must cover the worst
 * "notice" delay, readyAt to the runner's read, or that worker starts late.
 *
 * Before CTRL_MARGIN_TRUST_RUNS runs have been measured, the margin is the larger of
 * CTRL_START_NOTICE_DEFAULT_MS (the real node's slowest refresh and the writes before it) and
 * what was measured, plus CTRL_START_SLACK_MS; after that, the slowest notice of the last
 * CTRL_MARGIN_WINDOW runs plus the slack, within [CTRL_START_MARGIN_MIN_MS,
 * CTRL_START_MARGIN_MAX_MS]. So a kubelet slower than assumed lengthens the margin from the next
 * run on, and one that is fast on every run shortens it. Memory only: a restarted operator starts
 * from the default again. */
#ifndef PGBO_CONTROLLER_MARGIN_H
#define PGBO_CONTROLLER_MARGIN_H

/* readyAt to the runner's read of the barrier, assumed before any was measured: the slowest
 * downwardAPI refresh of the real node (1170 ms) plus the status write and the pod patches. */
#define CTRL_START_NOTICE_DEFAULT_MS 1250
/* Added to the notice delay: the runner's poll of its file (BENCH_START_POLL_MS) and the
 * scheduling of its timer. */
#define CTRL_START_SLACK_MS 80
#define CTRL_START_MARGIN_MIN_MS 300
#define CTRL_START_MARGIN_MAX_MS 10000
#define CTRL_MARGIN_WINDOW 16
#define CTRL_MARGIN_TRUST_RUNS 8

struct ctrl_margin {
    double notice_s[CTRL_MARGIN_WINDOW]; /* the last runs' slowest notice delays, a ring */
    int n, next;
};

/* Records one run's slowest notice delay (seconds; ignored unless > 0 and finite). */
void ctrl_margin_record(struct ctrl_margin *m, double notice_s);
/* The margin for the next barrier, in milliseconds. m NULL: the default. */
long ctrl_margin_ms(const struct ctrl_margin *m);

#endif
