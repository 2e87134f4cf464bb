#!/usr/bin/env python3
"""Emit the CI-sized version of an example (the documented small-scale override).

usage: scripts/shrink-example.py EXAMPLE.yaml [> shrunk.yaml]

Every BenchmarkRun in the file is rewritten; other documents pass through unchanged. The
override (see examples/README.md) is controlled by environment variables:

  connection (the tests' local PostgreSQL stands in for every Service of the examples,
  since the simulated cluster's pods run as local processes and resolve no Service names):
    SHRINK_HOST       target.host                      default $PGHOST or 127.0.0.1
    SHRINK_PORT       target.port for primaries        default $PGPORT or 5432
    SHRINK_RO_PORT    target.port for read services    default $REPLICA_PORT or SHRINK_PORT
                      (host whose first label ends in -ro / -r / -read / -repl / -replicas,
                      or cnpg.service ro / r)
    SHRINK_DATABASE   target.database                  default $PGDATABASE (unset: unchanged)
    SHRINK_USER       target.user                      default $PGUSER (unset: unchanged)
    SHRINK_CNPG       host: rewrite target.cnpg into the equivalent host form (host, user:
                      target.user or app, passwordSecretRef <cluster>-app key password); keep:
                      leave it (for a cluster that resolves <cluster>-rw)        default host
    SHRINK_TLS        disable: sslMode disable, no caSecretRef (the test PostgreSQL has no
                      TLS); keep: leave TLS settings as they are                 default disable
    SHRINK_DB_PER_RUN 1: in files with several BenchmarkRuns give each its own database
                      (<database>_<n>, createDatabase true) so their inits do not race on one
                      database; 0: leave                                           default 1
  size caps (a value is only ever lowered):
    SHRINK_SCALE 1, SHRINK_CLIENTS 4, SHRINK_WORKERS 2, SHRINK_DURATION 3 (s),
    SHRINK_TRANSACTIONS 50, SHRINK_CATCHUP 30 (s, replicaCatchUpTimeoutSeconds),
    SHRINK_VOLUME 128Mi, SHRINK_FIO_SIZE 16m, SHRINK_FIO_RUNTIME 2 (s), SHRINK_IODEPTH 8,
    SHRINK_STORAGECLASS (unset: unchanged)
  Clients stay >= workers and threads <= clients per worker, so the result is still valid.
Each rewritten object gets the annotation pgbench.dev/shrunk: "true".
"""
import math
import os
import re
import sys

import yaml


def env(name, default=None):
    v = os.environ.get(name)
    return v if v not in (None, "") else default


def cap(value, limit):
    return min(value, limit) if isinstance(value, int) else value


READ_SUFFIX = re.compile(r"-(ro|r|read|repl|replicas)$")


def is_read_service(target):
    if "cnpg" in target:
        return target["cnpg"].get("service", "rw") in ("ro", "r")
    first = str(target.get("host", "")).split(".")[0]
    return bool(READ_SUFFIX.search(first))


def shrink_target(t, index, nruns):
    read = is_read_service(t)
    if "cnpg" in t and env("SHRINK_CNPG", "host") == "host":
        c = t.pop("cnpg")
        secret = f"{c['clusterName']}-{c.get('secret', 'app')}"
        t.setdefault("database", "app")
        t.setdefault("user", "app")  # the Secret's username is not read: its default owner
        t["passwordSecretRef"] = {"name": secret, "key": "password"}
        t["host"] = c["clusterName"] + "-" + c.get("service", "rw")
    if "host" in t:
        t["host"] = env("SHRINK_HOST", env("PGHOST", "127.0.0.1"))
        port = env("SHRINK_PORT", env("PGPORT", "5432"))
        if read:
            port = env("SHRINK_RO_PORT", env("REPLICA_PORT", port))
        t["port"] = int(port)
        if env("SHRINK_USER", env("PGUSER")):
            t["user"] = env("SHRINK_USER", env("PGUSER"))
    if env("SHRINK_DATABASE", env("PGDATABASE")):
        t["database"] = env("SHRINK_DATABASE", env("PGDATABASE"))
    if nruns > 1 and env("SHRINK_DB_PER_RUN", "1") == "1":
        t["database"] = f"{t.get('database', 'postgres')}_{index + 1}"
        t["createDatabase"] = True
    if env("SHRINK_TLS", "disable") == "disable":
        t.pop("caSecretRef", None)
        t["sslMode"] = "disable"


def shrink(obj, index, nruns):
    spec = obj.setdefault("spec", {})
    md = obj.setdefault("metadata", {})
    md.setdefault("annotations", {})["pgbench.dev/shrunk"] = "true"
    if "target" in spec:
        shrink_target(spec["target"], index, nruns)
    workers = cap(spec.get("workers", 1), int(env("SHRINK_WORKERS", "2")))
    spec["workers"] = workers
    wl = spec.get("workload", {})
    pg = wl.get("pgbench")
    if pg:
        init = pg.get("init")
        if init:
            init["scale"] = cap(init.get("scale", 1), int(env("SHRINK_SCALE", "1")))
            if init.get("partitions", 0) > init["scale"] * 100000:
                init["partitions"] = 1
        run = pg.get("run", {})
        clients = max(workers, cap(run.get("clients", 1), int(env("SHRINK_CLIENTS", "4"))))
        run["clients"] = clients
        per_worker = math.ceil(clients / workers)
        run["threads"] = max(1, min(run.get("threads", 1), per_worker))
        if "durationSeconds" in run:
            run["durationSeconds"] = cap(run["durationSeconds"], int(env("SHRINK_DURATION", "3")))
        if "transactions" in run:
            run["transactions"] = cap(run["transactions"], int(env("SHRINK_TRANSACTIONS", "50")))
        if run.get("progressSeconds", 1) > 1:
            run["progressSeconds"] = 1
    fio = wl.get("fio")
    if fio:
        fio["volumeSize"] = env("SHRINK_VOLUME", "128Mi")
        if env("SHRINK_STORAGECLASS") is not None:
            fio["storageClassName"] = env("SHRINK_STORAGECLASS")
        for j in fio.get("jobs", []):
            j["size"] = env("SHRINK_FIO_SIZE", "16m")
            j["runtimeSeconds"] = cap(j.get("runtimeSeconds", 60), int(env("SHRINK_FIO_RUNTIME", "2")))
            j["iodepth"] = cap(j.get("iodepth", 1), int(env("SHRINK_IODEPTH", "8")))
            j["numjobs"] = cap(j.get("numjobs", 1), 1)
    diag = spec.get("diagnostics")
    if diag and "replicaCatchUpTimeoutSeconds" in diag:
        diag["replicaCatchUpTimeoutSeconds"] = cap(
            diag["replicaCatchUpTimeoutSeconds"], int(env("SHRINK_CATCHUP", "30")))
    return obj


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    runs = [d for d in docs if d.get("kind") == "BenchmarkRun"]
    out = []
    for d in docs:
        if d.get("kind") == "BenchmarkRun":
            d = shrink(d, runs.index(d), len(runs))
        out.append(d)
    sys.stdout.write(f"# CI-sized by scripts/shrink-example.py from {argv[0]}\n")
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False, default_flow_style=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
