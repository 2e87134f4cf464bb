#!/usr/bin/env bash
# fio done right (issue 32, item 6). The runner against real fio, its JSON and logs kept by a
# wrapper: every percentile fio printed (clat, lat and sync) is in the result, in µs, key by key;
# the IOPS and bandwidth series is fio's own per-second logs, clones summed (an oracle that reads
# the log files itself), its mean near the IOPS fio reports. Then `kubectl pgbench fio
# --preset wal` through the operator on the simulated cluster: the wal job is buffered 8k
# sequential writes with fdatasync, one job, the sync engine (what PostgreSQL does with
# wal_sync_method=fdatasync); the result ConfigMap has every percentile and the series; the table,
# status.result and the report give sync and clat latencies in µs.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_need_runner
command -v fio >/dev/null || fail "fio not installed"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
mkdir -p "$TMP/data" "$TMP/keep"

cat >"$TMP/fio-keep" <<SH
#!/bin/sh
# the real fio; its JSON and its logs copied where the test reads them
rc=0
fio "\$@" >"$TMP/keep/fio.json" || rc=\$?
cat "$TMP/keep/fio.json"
for a in "\$@"; do case "\$a" in --write_iops_log=*) cp "\${a#--write_iops_log=}"_* "$TMP/keep/" 2>/dev/null;; esac; done
exit \$rc
SH
chmod +x "$TMP/fio-keep"

RC=0
FIO="$TMP/fio-keep" BENCH_TERMINATION_LOG="$TMP/fio.term" "$RUNNER" fio --directory "$TMP/data" \
    --job wal --rw write --bs 8k --size 8M --runtime 3 --ioengine sync --fdatasync 1 --numjobs 2 \
    --job rr --rw randread --bs 8k --size 8M --runtime 3 --ioengine psync \
    >"$TMP/fio.out" 2>"$TMP/fio.err" || RC=$?
[ "$RC" -eq 0 ] || { tail -20 "$TMP/fio.err" >&2; fail "fio run: exit $RC"; }
python3 - "$TMP/fio.out" "$TMP/keep" <<'PY' || { tail -20 "$TMP/fio.err" >&2; fail "fio result does not hold what fio reported"; }
import glob, json, os, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
keep = sys.argv[2]
fj = json.load(open(os.path.join(keep, "fio.json")))
jobs = {j["name"]: j for j in r["fio"]["jobs"]}
for fjob in fj["jobs"]:
    name = fjob["jobname"]
    j = jobs[name]
    pairs = [("sync", fjob["sync"]["lat_ns"], j["sync"])]
    for d in ("read", "write"):
        if fjob[d]["total_ios"] > 0:
            pairs += [(d + " clat", fjob[d]["clat_ns"], j[d]["clatUs"]), (d + " lat", fjob[d]["lat_ns"], j[d]["latUs"])]
    for what, f, mine in pairs:
        if not f.get("percentile"):
            continue
        want = {"%g" % float(k): v / 1000.0 for k, v in f["percentile"].items()}
        got = mine["percentiles"]
        assert set(got) == set(want), (name, what, sorted(got), sorted(want))
        assert len(got) >= 17 and "99.99" in got, (name, what, sorted(got))
        for k, v in want.items():
            assert abs(got[k] - v) < 1e-6, (name, what, k, got[k], v)
    # the series: fio's own logs, read here, clones summed per second
    want = {}
    for kind, key in (("iops", "Iops"), ("bw", "BwKiBs")):
        for path in glob.glob(os.path.join(keep, "%s_%s.*.log" % (name, kind))):
            for line in open(path):
                f = [x.strip() for x in line.split(",")]
                t = int(round(int(f[0]) / 1000.0))
                k = ("read" if f[2] == "0" else "write") + key
                want.setdefault(t, {}).setdefault(k, 0)
                want[t][k] += int(f[1])
    series = {p["t"]: p for p in j["series"]}
    assert want and sorted(series) == sorted(want), (name, sorted(series), sorted(want))
    for t, vals in want.items():
        for k, v in vals.items():
            assert series[t][k] == v, (name, t, k, series[t][k], v)
    # fio logs whole seconds only: their mean is near the run's IOPS, not its total
    d = "write" if name == "wal" else "read"
    mean = sum(p[d + "Iops"] for p in j["series"]) / len(j["series"])
    assert abs(mean - fjob[d]["iops"]) <= 0.35 * fjob[d]["iops"], (name, mean, fjob[d]["iops"])
    print("%s: percentiles of sync/clat/lat equal fio's, %d series points, mean %.0f IOPS vs fio's %.0f"
          % (name, len(series), mean, fjob[d]["iops"]))
PY

# --- through the operator: the wal preset, the ConfigMap, units in the table and the report ---
env_start_sim
export PATH="$BIN:$PATH" KUBECTL_PGBENCH_POLL_MS=300
env_kubectl apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: sim.pgbench.dev/hostpath
EOF
env_start_operator --start-delay 0 --log-level info
kubectl pgbench fio walprobe --storage-class fast --size 1Gi --file-size 16m --runtime 3 --preset wal \
    --wait >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "fio --wait"; }
cat "$TMP/out" >&2
grep -Eq '^  JOB +READ IOPS +WRITE IOPS +READ KiB/s +WRITE KiB/s +READ CLAT P99 µs +WRITE CLAT P99 µs +SYNC P99 µs$' "$TMP/out" ||
    fail "the table does not give clat and sync in µs"
k get br walprobe -o json >"$TMP/br.json"
env_result_json walprobe >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/result.json" <<'PY' || fail "wal preset or ConfigMap"
import json, sys
br = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
job = br["spec"]["workload"]["fio"]["jobs"][0]
assert (job["name"], job["rw"], job["bs"], job["iodepth"], job["numjobs"], job["fdatasync"],
        job["direct"], job["ioengine"]) == ("wal", "write", "8k", 1, 1, 1, False, "sync"), job
st = br["status"]
assert " IOPS · sync p99 " in st["result"] and st["result"].endswith(" µs"), st["result"]
w = r["fio"]["jobs"][0]
assert w["name"] == "wal" and w["read"] is None
assert len(w["sync"]["percentiles"]) >= 17 and len(w["write"]["clatUs"]["percentiles"]) >= 17, w
assert len(w["series"]) >= 2 and all(p["writeIops"] > 0 for p in w["series"][:2]), w["series"]
assert len(r["workerResults"][0]["fio"]["jobs"][0]["series"]) == len(w["series"])
print("wal preset ok:", st["result"], "|", len(w["series"]), "series points")
PY
kubectl pgbench report walprobe -o "$TMP/report.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
env_chromium_render "$TMP/report.html" "$TMP/dom.html" "$TMP/report.png" 1400
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/report.png" "$SAVE_SCREENSHOT"
python3 - "$TMP/dom.html" <<'PY' || fail "fio report"
import re, sys
dom = open(sys.argv[1]).read()
assert 'id="fio"' in dom and "p99 (µs)" in dom, "fio chart in µs"
assert 'id="fio-iops"' in dom and 'data-label="wal write IOPS"' in dom, "no IOPS over time"
for absent in ("Throughput over time", "Latency percentiles", "Replica lag", "Wait events", "Statement latencies"):
    assert absent not in dom, absent
print("fio report ok")
PY
pass "fio: every percentile and the IOPS/bandwidth series as fio reported them; wal preset as PostgreSQL writes WAL; µs everywhere"
