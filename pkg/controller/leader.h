/* pkg/controller/leader: leader election with a coordination.k8s.io/v1 Lease (client-go's
 * algorithm). Every retry period the candidate reads the Lease: absent -> create it holding it;
 * held by us -> renew (renewTime); held by another -> wait until that holder has not renewed for
 * leaseDurationSeconds as observed on OUR clock (no clock-skew assumptions), then take it over
 * (leaseTransitions + 1). Writes carry the resourceVersion read, so two candidates cannot both
 * win. A leader that cannot renew within renew_deadline stops leading (on_stopped); every Lease
 * request is bounded by renew_deadline, its Retry-After waits included. Release clears
 * holderIdentity so a successor need not wait for expiry; a release that fails (the Role already
 * gone at uninstall, 403) is logged at warn level with the server's reason.
 *
 * Owner pod: when owner_pod_name and owner_pod_uid are set (the operator's own pod, in the
 * Lease's namespace, from the downward API), every write gives the Lease an ownerReference to
 * that Pod (no controller, no blockOwnerDeletion), so the garbage collector deletes the Lease
 * once the pod is gone even when the release could not be written: `helm uninstall` leaves no
 * Lease behind. The same model as operator-lib's leader-for-life lock, a ConfigMap owned by the
 * operator's pod. A successor that takes the Lease over writes its own pod as the owner.
 *
 * Every write also labels the Lease API_LEASE_LABEL=API_LEASE_LABEL_VALUE and annotates it with
 * the writing operator's version line (API_ANNOTATION_VERSION, "pgbench-operator 0.1.0 (commit
 * 648c126)", util_version_line),
 * so `kubectl pgbench version` finds which operator leads, and at which version. */
#ifndef PGBO_CONTROLLER_LEADER_H
#define PGBO_CONTROLLER_LEADER_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "pkg/api/manifest.h"
#include "pkg/kube/kube.h"

struct ctrl_leader_opts {
    const char *name;           /* Lease name */
    const char *namespace;      /* Lease namespace */
    const char *identity;       /* this candidate: ctrl_leader_identity */
    int lease_duration_s;       /* default 15 */
    int renew_deadline_s;       /* default 10 */
    int retry_period_s;         /* default 2 */
    const char *owner_pod_name; /* optional: this process's Pod, in `namespace` */
    const char *owner_pod_uid;  /* its metadata.uid; both or neither */
    void (*on_started)(void *ud);
    void (*on_stopped)(void *ud);
    void *ud;
};

struct ctrl_leader;

/* "<host>_<16 random hex digits>" into out (n bytes; host truncated to fit): a candidate's
 * identity, unique per process start. Not hostname_pid: in a container the pid is always 1, so a
 * restarted pod (same name) would hold its predecessor's identity and renew its Lease as if it
 * had never stopped. The random part comes from getrandom(2), or the clock and pid without it. */
void ctrl_leader_identity(char *out, size_t n, const char *host);

/* Copies o's strings; cannot fail (allocation failure aborts, pkg/util/mem.h). */
struct ctrl_leader *ctrl_leader_new(uv_loop_t *loop, struct kube_client *kc,
                                    const struct ctrl_leader_opts *o);
int ctrl_leader_start(struct ctrl_leader *l);
bool ctrl_leader_is_leader(const struct ctrl_leader *l);
/* Stops campaigning; if leading, writes the Lease released, then calls done(ud) (also when not
 * leading, on the next loop iteration). */
void ctrl_leader_release(struct ctrl_leader *l, void (*done)(void *ud), void *ud);
/* Closes the timer; free happens in the close callback. */
void ctrl_leader_free(struct ctrl_leader *l);

#endif
