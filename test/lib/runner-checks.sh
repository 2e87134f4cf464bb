# What a pgbench-runner result must hold, written once for the tests that run the host-built
# runner (e2e 30, 33) and the ones that run the runner image (e2e 74). Source it after env.sh.
#   runner_check OUT TERM BLOCK   the last line of OUT (the result) as `r`, the termination message
#                                 TERM as `term`; BLOCK is Python that raises AssertionError to fail
#   RUNNER_INIT_ARGS / RUNNER_INIT_CHECK   pgbench init --scale 2 on a fresh database
#   RUNNER_TPCB_ARGS / RUNNER_TPCB_CHECK   a 5 s TPC-B with per-statement latencies, wait events and
#                                          server settings (env_start_pg's server), after that init
#   runner_fio_args DIR / RUNNER_FIO_CHECK a WAL-like job and a libaio random-read job on DIR

runner_check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
r = json.loads(lines[-1])
raw_term = open(sys.argv[2]).read()
assert len(raw_term.encode()) < 3072, "termination message too long: %d" % len(raw_term)
term = json.loads(raw_term)
assert r["schemaVersion"] == 1 and term["schemaVersion"] == 1
S = r.get("summary") or {}
D = r  # waitEvents and server are top-level keys
C = r.get("checks") or {}  # dataset, littlesLaw, replica
def ordered_percentiles(s):
    keys = ["latencyP50Ms", "latencyP90Ms", "latencyP95Ms", "latencyP99Ms", "latencyP999Ms", "latencyMaxMs"]
    vals = [s.get(k) for k in keys]
    assert all(isinstance(v, (int, float)) for v in vals), "percentiles missing: %r" % vals
    assert all(a <= b for a, b in zip(vals, vals[1:])), "percentiles not ordered: %r" % vals
    assert vals[0] > 0, "p50 is zero"
exec(sys.argv[3])
PY
}

RUNNER_INIT_ARGS=(pgbench init --scale 2 --skip-if-initialized)
# shellcheck disable=SC2034 # used by the tests that source this file
RUNNER_INIT_CHECK='
assert r["kind"] == "pgbench-init" and r["complete"] is True and r["exitCode"] == 0
assert r["init"]["skipped"] is False and r["init"]["scale"] == 2, r["init"]
assert "does not exist" in r["init"]["reason"] or "initialized" in r["init"]["reason"], r["init"]
'

RUNNER_TPCB_ARGS=(pgbench run --clients 4 --threads 2 --duration 5 --per-statement --wait-events
    --server-settings)
# shellcheck disable=SC2034
RUNNER_TPCB_CHECK='
assert r["kind"] == "pgbench" and r["complete"] is True and r["exitCode"] == 0, (r["complete"], r.get("errors"))
assert S["tps"] > 0, S
n = S.get("transactionsProcessed", S.get("transactions"))
assert n and n > 0, S
ordered_percentiles(S)
tl = r["timeline"]
assert 4 <= len(tl) <= 6, "timeline has %d points for a 5 s run" % len(tl)
assert all(p["tps"] >= 0 for p in tl)
st = r["statements"]
assert len(st) >= 7, st
assert any("UPDATE pgbench_accounts" in s["command"] for s in st), st
assert all(isinstance(s["latencyMs"], (int, float)) for s in st)
we = D["waitEvents"]
assert we["samples"] >= 3, we
assert sum(we["events"].values()) > 0, we
assert we["backendSamples"] >= we["samples"], we
assert we["applicationName"].startswith("pgbench-runner:"), we
assert D["server"]["shared_buffers"] == "128MB", D["server"]
assert D["server"]["fsync"] == "off" and D["server"]["version"].startswith("15."), D["server"]
for k in ("max_connections", "synchronous_commit", "wal_level", "effective_io_concurrency"):
    assert k in D["server"], k
assert C["dataset"]["fitsInSharedBuffers"] is True and C["dataset"]["warning"], C["dataset"]
ll = C["littlesLaw"]
assert ll["predictedTps"] > 0 and abs(ll["deviationPct"]) < 50, ll
h = r["histogram"]
assert h["count"] == n, (h["count"], n)
assert term["complete"] is True
'

runner_fio_args() {
    echo fio --directory "$1" \
        --job wal --rw write --bs 8k --size 4M --runtime 2 --ioengine psync --fdatasync 1 \
        --job randread --rw randread --bs 4k --size 8M --runtime 2 --ioengine libaio --iodepth 8 --direct
}
# shellcheck disable=SC2034
RUNNER_FIO_CHECK='
assert r["kind"] == "fio" and r["complete"] is True and r["exitCode"] == 0, r.get("errors")
assert term["kind"] == "fio" and term["complete"] is True
jobs = {j["name"]: j for j in r["fio"]["jobs"]}
assert set(jobs) == {"wal", "randread"}, list(jobs)
w = jobs["wal"]
assert w["write"]["iops"] > 0 and w["write"]["bwKiBs"] > 0, w["write"]
assert w["read"] is None, w["read"]
assert w["write"]["clatUs"]["p99"] > 0
s = w["sync"]
assert s and s["p50"] > 0 and s["p99"] >= s["p50"], s
rr = jobs["randread"]
assert rr["read"]["iops"] > 0, rr["read"]
c = rr["read"]["clatUs"]
assert 0 < c["p50"] <= c["p99"] <= c["p999"], c
print("wal: %.0f write iops, fdatasync p99 %.0f us; randread: %.0f iops, clat p99 %.0f us"
      % (w["write"]["iops"], s["p99"], rr["read"]["iops"], c["p99"]))
'
