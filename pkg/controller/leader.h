/* pkg/controller/leader: leader election with a coordination.k8s.io/v1 Lease (client-go's
 * algorithm). Every retry period the candidate reads the Lease: absent -> create it holding it;
 * held by us -> renew (renewTime); held by another -> wait until that holder has not renewed for
 * leaseDurationSeconds as observed on OUR clock (no clock-skew assumptions), then take it over
 * (leaseTransitions + 1). Writes carry the resourceVersion read, so two candidates cannot both
 * win. A leader that cannot renew within renew_deadline stops leading (on_stopped). Release
 * clears holderIdentity so a successor need not wait for expiry. */
#ifndef PGBO_CONTROLLER_LEADER_H
#define PGBO_CONTROLLER_LEADER_H

#include <stdbool.h>

#include <uv.h>

#include "pkg/kube/kube.h"

struct ctrl_leader_opts {
    const char *name;      /* Lease name */
    const char *namespace; /* Lease namespace */
    const char *identity;  /* this candidate, e.g. hostname_pid */
    int lease_duration_s;  /* default 15 */
    int renew_deadline_s;  /* default 10 */
    int retry_period_s;    /* default 2 */
    void (*on_started)(void *ud);
    void (*on_stopped)(void *ud);
    void *ud;
};

struct ctrl_leader;

int ctrl_leader_new(uv_loop_t *loop, struct kube_client *kc, const struct ctrl_leader_opts *o,
                    struct ctrl_leader **out);
int ctrl_leader_start(struct ctrl_leader *l);
bool ctrl_leader_is_leader(const struct ctrl_leader *l);
/* Stops campaigning; if leading, writes the Lease released, then calls done(ud) (also when not
 * leading, on the next loop iteration). */
void ctrl_leader_release(struct ctrl_leader *l, void (*done)(void *ud), void *ud);
/* Closes the timer; free happens in the close callback. */
void ctrl_leader_free(struct ctrl_leader *l);

/* "2026-12-03T07:00:00.123456Z" (metav1.MicroTime). */
void ctrl_micro_time(double t, char *out, size_t len);

#endif
