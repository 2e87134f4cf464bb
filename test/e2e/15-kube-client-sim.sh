#!/usr/bin/env bash
# pkg/kube against the simulated API server: CRUD and Status decoding, field validation,
# pagination, injected 500/429, and an informer through dropped watches and compaction (410).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim
"$BUILD/itest/kube_sim" || fail "kube client against the simulated API server (see above)"
pass
