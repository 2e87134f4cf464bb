#!/usr/bin/env bash
# Every example in examples/ reaches Succeeded with plausible numbers. Each BenchmarkRun is taken
# from the file as written, with what only a real cluster has replaced by this machine's stand-ins:
# the target becomes the throwaway PostgreSQL (a streaming replica for replicaLag examples; the
# CNPG shortcut's name mapping is covered by the unit tests), TLS becomes sslMode disable, sizes and
# durations shrink to seconds, the HPA's scale target and the fio StorageClass are created.
# Everything else (workers, clients split, builtin, protocol, flags, scripts, cleanup) is kept.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_replica
env_start_sim
env_start_operator
# pgbench tables for examples without init (and for the replica, through streaming)
"$BIN/pgbench-runner" pgbench init --scale 1 >/dev/null 2>&1 || fail "init failed"

ls "$ROOT"/examples/*.yaml >/dev/null 2>&1 || fail "no examples/*.yaml"
n=0
for ex in "$ROOT"/examples/*.yaml; do
    if grep -q '^kind: BenchmarkSweep' "$ex"; then # a series of runs: 59-operator-sweep.sh runs it, shrunk
        note "$(basename "$ex"): a BenchmarkSweep, run by test/e2e/59-operator-sweep.sh"
        continue
    fi
    python3 - "$ex" "$TMP/adapted.yaml" "$TMP/extra.yaml" "$PGPORT" "$REPLICA_PORT" >/dev/null <<'PY' || fail "cannot adapt $ex"
import sys, yaml
src, out, extra, port, rport = sys.argv[1:6]
docs = [d for d in yaml.safe_load_all(open(src)) if d]
brs, others, extras = [], [], []
for d in docs:
    if d.get("kind") != "BenchmarkRun":
        others.append(d)
        continue
    s = d["spec"]
    wl = s["workload"]
    if "pgbench" in wl:
        diag = s.get("diagnostics") or {}
        replica = bool(diag.get("replicaLag")) and wl["pgbench"].get("run", {}).get("noVacuum")
        t = {"host": "127.0.0.1", "port": int(rport if replica else port), "database": "bench",
             "user": "bench", "passwordSecretRef": {"name": "pg-pass"}, "sslMode": "disable"}
        if (s.get("target") or {}).get("createDatabase"):
            t["createDatabase"] = True
        s["target"] = t
        init = wl["pgbench"].get("init")
        if init:
            init["scale"] = min(init.get("scale", 1), 2)
            if replica:
                wl["pgbench"].pop("init")
        run = wl["pgbench"]["run"]
        if "durationSeconds" in run:
            run["durationSeconds"] = min(run["durationSeconds"], 3)
        if "transactions" in run:
            run["transactions"] = min(run["transactions"], 50)
        run["clients"] = max(min(run.get("clients", 1), 8), s.get("workers", 1))
        run["progressSeconds"] = 1
        if "hpa" in s:
            ref = s["hpa"]["scaleTargetRef"]
            extras.append({"apiVersion": "apps/v1", "kind": ref.get("kind", "StatefulSet"),
                           "metadata": {"name": ref["name"]},
                           "spec": {"replicas": 1, "serviceName": ref["name"],
                                    "selector": {"matchLabels": {"app": ref["name"]}},
                                    "template": {"metadata": {"labels": {"app": ref["name"]}},
                                                 "spec": {"containers": [{"name": "pg", "image": "postgres:15"}]}}}})
    else:
        f = wl["fio"]
        sc = f.get("storageClassName")
        if sc:
            extras.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                           "metadata": {"name": sc}, "provisioner": "sim.pgbench.dev/hostpath"})
        for j in f["jobs"]:
            j.update({"size": "16m", "runtimeSeconds": min(j.get("runtimeSeconds", 2), 2),
                      "direct": False, "ioengine": "psync"})
    brs.append(d)
yaml.safe_dump_all(others + brs, open(out, "w"))
yaml.safe_dump_all(extras, open(extra, "w"))
print(" ".join(b["metadata"]["name"] for b in brs))
PY
    names="$(python3 -c 'import sys,yaml; print(" ".join(d["metadata"]["name"] for d in yaml.safe_load_all(open(sys.argv[1])) if d and d.get("kind")=="BenchmarkRun"))' "$TMP/adapted.yaml")"
    [ -s "$TMP/extra.yaml" ] && env_kubectl apply -f "$TMP/extra.yaml" >/dev/null 2>&1 || true
    env_apply "$TMP/adapted.yaml"
    for name in $names; do
        env_wait_phase "$name" Succeeded 120
        env_kubectl get br "$name" -o json >"$TMP/$name.json"
        env_result_json "$name" >"$TMP/$name-result.json"
        python3 - "$TMP/$name.json" "$TMP/$name-result.json" <<'PY' || fail "$(basename "$ex") $name: implausible numbers"
import json, sys
br = json.load(open(sys.argv[1])); st = br["status"]; spec = br["spec"]
rows = json.load(open(sys.argv[2]))["workers"]  # the worker rows, in the result ConfigMap
if "fio" in spec["workload"]:
    for j in st["fio"]:
        assert (j.get("readIops") or 0) + (j.get("writeIops") or 0) > 0, j
else:
    s = st["summary"]
    lat = s["latencyMs"]
    assert s["tps"] > 0 and s["transactions"] > 0 and lat["avg"] > 0, s
    assert lat["p50"] <= lat["p99"], s
    assert len(st["workers"]) == len(rows) == spec.get("workers", 1), (st["workers"], rows)
    assert all(w["complete"] for w in rows), rows
    assert all(l.startswith("%d %s on node %s: ok, " % (w["index"], w["pod"], w["node"])) for l, w in zip(st["workers"], rows)), \
        st["workers"]
    run = spec["workload"]["pgbench"]["run"]
    if "transactions" in run:
        assert s["transactions"] == run["transactions"] * run["clients"], (s, run)
    if spec.get("hpa"):
        assert st.get("hpaTimeline"), "no hpaTimeline"
PY
        note "$(basename "$ex") $name: $(env_status "$name" .status.message)"
        n=$((n + 1))
    done
done
pass "$n BenchmarkRuns from examples/ Succeeded"
