#!/usr/bin/env python3
"""A run's wall time, step by step (issue 31.3), and the goals of the simulated cluster.

run-phases.py RUN RESULT_JSON WATCH_LOG... [--check]
  RUN          the BenchmarkRun's name (the watch lines of it and its pods, RUN-*, are read)
  RESULT_JSON  the run's result ConfigMap's result.json (its timing.steps: each step from its own
               record, pkg/api/timing.h)
  WATCH_LOG    test/lib/stamp-watch.py's lines (env_stamp_watch) of the runs and pods: when the API server
               published the last worker pod's Ready and the run's Succeeded, to the millisecond
Prints each step in seconds after the apply with its source, then the goals:
  Succeeded within 1 s of the last worker's end (watch vs the runners' records);
  pgbench started within 1.5 s of the last pod Ready (the runners' records vs the watch), and no
  worker late against the barrier (each worker read it before it, and started within 0.1 s).
With --check, exits 1 when a goal is missed."""
import json
import sys
from datetime import datetime

LATE_LIMIT_S = 0.1
GOAL_SUCCEEDED_S = 1.0
GOAL_START_S = 1.5


def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    run, doc = args[0], json.load(open(args[1]))
    steps = {s["step"]: s for s in doc["timing"]["steps"]}
    applied = t(steps["applied"]["at"])
    ready_watch, done_watch, succeeded_watch = {}, {}, None
    lines = [l for f in args[2:] for l in open(f)]
    for line in lines:
        at, obj = line.split(" ", 1)
        o = json.loads(obj)
        if o["name"] != run and not o["name"].startswith(run + "-"):
            continue
        if o["kind"] == "Pod" and o["role"] == "run" and o["ready"] == "True":
            ready_watch.setdefault(o["name"], float(at))
        if o["kind"] == "Pod" and o["role"] == "run" and o["phase"] in ("Succeeded", "Failed"):
            done_watch.setdefault(o["name"], float(at))
        if o["kind"] == "BenchmarkRun" and o["phase"] == "Succeeded" and succeeded_watch is None:
            succeeded_watch = float(at)
    rows = [(s["step"], t(s["at"]), s["source"]) for s in doc["timing"]["steps"]]
    if ready_watch:
        rows.append(("lastPodReady", max(ready_watch.values()),
                     "the last worker pod's Ready=True, as a watch saw it (1 ms)"))
    if done_watch:
        rows.append(("lastPodTerminated", max(done_watch.values()),
                     "the last worker pod's phase Succeeded/Failed, as a watch saw it (1 ms)"))
    if succeeded_watch:
        rows.append(("succeeded", succeeded_watch, "status.phase Succeeded, as a watch saw it (1 ms)"))
    rows.sort(key=lambda r: r[1])
    prev = applied
    print("  %-18s %8s %8s  %s" % ("step", "+s", "gap s", "source"))
    for name, at, src in rows:
        print("  %-18s %8.3f %8.3f  %s" % (name, at - applied, at - prev, src))
        prev = at
    workers = [w for w in doc.get("workerResults") or [] if w]
    late = [w["window"]["lateSeconds"] for w in workers]
    seen = [w["window"].get("seenSeconds") for w in workers]
    ended = t(steps["pgbenchEnded"]["at"])
    started = t(steps["pgbenchStarted"]["at"])
    ok = True

    def goal(what, value, limit, extra=""):
        nonlocal ok
        met = value is not None and value <= limit
        ok = ok and met
        print("  %-58s %s (goal <= %.1f s)%s %s" % (
            what, "%.3f s" % value if value is not None else "unknown", limit, extra,
            "met" if met else "MISSED"))

    goal("Succeeded after the last worker's end", succeeded_watch - ended if succeeded_watch else None,
         GOAL_SUCCEEDED_S)
    goal("pgbench started after the last pod Ready",
         started - max(ready_watch.values()) if ready_watch else None, GOAL_START_S)
    late_ok = all(s is not None and s < 0 for s in seen) and all(x < LATE_LIMIT_S for x in late)
    print("  %-58s %s" % ("workers against the barrier: read it / started (s after it)",
                          ", ".join("%+.3f/%+.3f" % (s if s is not None else float("nan"), x)
                                    for s, x in zip(seen, late))),
          "none late" if late_ok else "LATE")
    ok = ok and late_ok
    return 0 if ok or not check else 1


if __name__ == "__main__":
    sys.exit(main())
