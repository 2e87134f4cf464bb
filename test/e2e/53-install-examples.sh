#!/usr/bin/env bash
# Every example in examples/ reaches Succeeded with plausible numbers: the real operator and
# runner on the simulated cluster against a local PostgreSQL 15 (primary + streaming replica),
# in a namespace that enforces the restricted Pod Security Standard.
# Examples are CI-sized by scripts/shrink-example.py (the override in examples/README.md): the
# local primary stands in for pg-rw/pg-fast-rw/pg-standard-rw/the managed host, the replica for
# pg-ro, sizes and durations are capped. EXAMPLES=pattern selects some.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"
env_start_pg
env_start_replica
env_start_sim

env_need_runner

# Runner pods must pass the restricted Pod Security Standard, as in a namespace that enforces it
k label namespace default pod-security.kubernetes.io/enforce=restricted >/dev/null
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: psa-probe}\nspec: {containers: [{name: c, image: x}]}\n' |
    k apply -f - >"$TMP/probe" 2>&1 && fail "a pod without a securityContext was admitted under restricted"
grep -q 'violates PodSecurity "restricted:latest"' "$TMP/probe" || { cat "$TMP/probe" >&2; fail "Pod Security refusal"; }
k apply -f crds/benchmarkrun.yaml >/dev/null
k wait --for=condition=Established crd/benchmarkruns.pgbench.dev --timeout=20s >/dev/null

# What the examples expect (see each file's header): Secrets, a StorageClass, a StatefulSet.
secret() { # name key=value...
    local name="$1" args=()
    shift
    for kv in "$@"; do args+=(--from-literal="$kv"); done
    k create secret generic "$name" "${args[@]}" --dry-run=client -o yaml | k apply -f - >/dev/null ||
        fail "create Secret $name"
}
for s in pg-app pg-fast-app pg-standard-app; do
    secret "$s" password="$PGPASSWORD" username="$PGUSER"
done
secret managed-pg password="$PGPASSWORD"
secret managed-pg-ca ca.crt="unused: SHRINK_TLS=disable drops caSecretRef"
k apply -f - >/dev/null <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: sim.local/hostpath
volumeBindingMode: Immediate
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg-replicas}
spec:
  replicas: 1
  serviceName: pg-ro
  selector: {matchLabels: {app: pg-replicas}}
  template:
    metadata: {labels: {app: pg-replicas}}
    spec:
      containers:
        - name: postgres
          image: postgres:15
          resources: {requests: {cpu: 500m}}
YAML

env_start_operator --log-level info

check() { # example-file shrunk-file: plausibility of every BenchmarkRun in it
    python3 - "$@" <<'PY'
import json, subprocess, sys, yaml, os
example, shrunk = sys.argv[1], sys.argv[2]
kc = [os.environ.get("KUBECTL", "kubectl"), "--kubeconfig", os.environ["KUBECONFIG"]]
for want in [d for d in yaml.safe_load_all(open(shrunk)) if d and d["kind"] == "BenchmarkRun"]:
    name = want["metadata"]["name"]
    br = json.loads(subprocess.check_output(kc + ["get", "br", name, "-o", "json"]))
    st, spec = br["status"], want["spec"]
    cm = json.loads(subprocess.check_output(kc + ["get", "cm", st["resultRef"]["name"], "-o", "json"]))
    res = json.loads(cm["data"][st["resultRef"]["key"]])  # the rows status has as lines
    def ok(cond, what):
        if not cond:
            print(f"{example} {name}: {what}\nstatus: {json.dumps(st)[:3000]}")
            sys.exit(1)
    ok(st["phase"] == "Succeeded", "phase")
    ok(st.get("observedGeneration") == br["metadata"]["generation"], "observedGeneration")
    conds = {c["type"]: c for c in st.get("conditions", [])}
    ok(conds.get("Complete", {}).get("status") == "True", "Complete condition")
    wl = spec["workload"]
    if "pgbench" in wl:
        run = wl["pgbench"]["run"]
        s = st["summary"]
        ok(s["tps"] > 0 and s["transactions"] > 0, "tps/transactions > 0")
        ok(s.get("failed", 0) == 0 and s.get("aborted", 0) == 0, "no failures, no aborted clients")
        lat = s["latencyMs"]
        ok(0 < lat["p50"] <= lat["p99"] <= lat["max"] * 1.01 + 0.01, "p50 <= p99 <= max")
        ok(st["clients"] == run["clients"], f"status.clients {st.get('clients')} != {run['clients']}")
        ok(len(res["workers"]) == spec["workers"] and all(w["complete"] and w["exitCode"] == 0 for w in res["workers"]),
           "one complete row per worker")
        ok(len(st["workers"]) == spec["workers"] and all(": ok, " in l for l in st["workers"]), "one ok line per worker")
        ok(abs(sum(w["transactionsProcessed"] for w in res["workers"]) - s["transactions"]) <= 0, "worker transactions add up")
        if "transactions" in run:
            ok(s["transactions"] == run["clients"] * run["transactions"], "transactions = clients x -t")
        elif not run.get("connect"):
            # Little's law: closed loop, clients / latency ~ tps (wide band: tiny runs); with
            # -C pgbench's latency leaves the connection time out, so the law does not hold
            pred = run["clients"] / (lat["avg"] / 1000.0)
            ok(0.2 < s["tps"] / pred < 5, f"Little's law: tps {s['tps']} vs {pred:.1f}")
        if "durationSeconds" in run:
            ok(len(st.get("timeline", [])) >= 1, "timeline")
        if run.get("perStatementLatencies"):
            ok(len(st.get("statements", [])) >= 5 and all(x["latencyMs"] >= 0 for x in res["statements"]),
               "per-statement latencies")
        if "hpa" in spec:
            ok(len(st.get("hpaTimeline", [])) >= 1 and st["hpaTimeline"][0]["replicas"] >= 1, "hpaTimeline")
        tgt = st["target"]
        ok(tgt.startswith(spec["target"]["host"] + ":" + str(spec["target"]["port"])), f"target {tgt}")
    else:
        fio = {j["job"]: j for j in st.get("fio", [])}
        for job in wl["fio"]["jobs"]:
            j = fio.get(job["name"])
            ok(j is not None, f"fio job {job['name']} missing")
            if "read" in job["rw"] or job["rw"] in ("rw", "randrw"):
                ok((j.get("readIops") or 0) > 0, f"{job['name']} read IOPS")
            if "write" in job["rw"] or job["rw"] in ("rw", "randrw"):
                ok((j.get("writeIops") or 0) > 0, f"{job['name']} write IOPS")
            if job.get("fdatasync"):
                ok((j.get("syncUs", {}).get("p99") or 0) > 0, f"{job['name']} fdatasync p99")
    print(f"  {name}: " + (f"tps {st['summary']['tps']:.0f} p99 {st['summary']['latencyMs']['p99']:.2f} ms"
                           if "pgbench" in wl else f"fio {sorted(fio)}"))
PY
}

n=0
for ex in examples/[0-9]*.yaml; do
    base="$(basename "$ex" .yaml)"
    if [ -n "${EXAMPLES:-}" ] && [[ "$base" != *$EXAMPLES* ]]; then continue; fi
    if grep -q '^kind: BenchmarkSweep' "$ex"; then # a series of runs: 59-operator-sweep.sh runs it, shrunk
        note "$(basename "$ex"): a BenchmarkSweep, run by test/e2e/59-operator-sweep.sh"
        continue
    fi
    scripts/shrink-example.py "$ex" >"$TMP/$base.yaml" || fail "shrink $ex"
    python3 scripts/validate-crd.py "$TMP/$base.yaml" 2>"$TMP/$base.validate" ||
        { cat "$TMP/$base.validate"; fail "shrunk $ex is invalid"; }
    names="$(python3 -c 'import sys,yaml; print(" ".join(d["metadata"]["name"] for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"]=="BenchmarkRun"))' "$TMP/$base.yaml")"
    env_apply "$TMP/$base.yaml"
    if [ "$base" = 03-scale-out-hpa ]; then
        # the sim has no metrics-server: its scripted scaler plays the HPA's decisions
        env_wait_for "HPA scale-out-hpa-hpa" 60 k get hpa scale-out-hpa-hpa
        k create --raw /sim/hpa-script -f - >/dev/null <<JSON
{"namespace":"default","name":"scale-out-hpa-hpa","steps":[{"afterSeconds":1,"replicas":2}]}
JSON
    fi
    for name in $names; do env_wait_phase "$name" Succeeded 180; done
    out="$(check "$ex" "$TMP/$base.yaml")" || { echo "$out" >&2; fail "$ex: implausible result"; }
    note "$base:"$'\n'"$out"
    case "$base" in
    03-scale-out-hpa)
        env_wait_for "HPA deleted after the run" 30 bash -c "! '${KUBECTL:-kubectl}' --kubeconfig '$KUBECONFIG' get hpa scale-out-hpa-hpa" ;;
    05-transactions)
        env_wait_for "Jobs deleted (cleanupPolicy Delete)" 30 bash -c "! '${KUBECTL:-kubectl}' --kubeconfig '$KUBECONFIG' get job transactions-run"
        [ "$(k get br transactions -o jsonpath='{.status.phase}')" = Succeeded ] || fail "status lost after cleanup" ;;
    07-fio-storageclass)
        env_wait_for "fio PVC deleted (keepVolume false)" 30 bash -c "! '${KUBECTL:-kubectl}' --kubeconfig '$KUBECONFIG' get pvc fio-storageclass-fio" ;;
    esac
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no example matched"
k get br >&2
pass "$n example files reached Succeeded with plausible results"
