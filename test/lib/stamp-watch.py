#!/usr/bin/env python3
"""Stamps a `kubectl get -w -o json` stream: one line per object, `<unix time> <json>`, the time
it arrived here (milliseconds) and the few fields run-phases.py reads (kind, name, the pod's role,
its phase and Ready status, the run's phase), so a test sees when the API server published each
change, to the millisecond, where the objects' own timestamps have whole seconds."""
import json
import os
import sys
import time

dec = json.JSONDecoder()
buf = ""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    now = time.time()
    buf += chunk.decode("utf-8", "replace")
    while True:
        s = buf.lstrip()
        if not s:
            buf = ""
            break
        try:
            obj, end = dec.raw_decode(s)
        except ValueError:
            buf = s
            break
        buf = s[end:]
        md, st = obj.get("metadata", {}), obj.get("status") or {}
        ready = next((c.get("status") for c in st.get("conditions") or [] if c.get("type") == "Ready"), None)
        out = {"kind": obj.get("kind"), "name": md.get("name"),
               "role": (md.get("labels") or {}).get("pgbench.dev/role"),
               "phase": st.get("phase"), "ready": ready}
        sys.stdout.write("%.3f %s\n" % (now, json.dumps(out)))
        sys.stdout.flush()
