#!/usr/bin/env bash
# fio through the runner on a temp dir: a WAL-like job (psync, write, 8k, fdatasync=1) and a
# random-read job (libaio, direct, iodepth 8) in one run; the JSON has iops, bandwidth, clat
# percentiles and fdatasync latency percentiles. Options that zero latencies (gtod_reduce ...)
# are refused with exit 1. `parse fio` reads the JSON fio printed.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$(dirname "$0")/../lib/runner-checks.sh"
env_need_runner
command -v fio >/dev/null || fail "fio not installed"
mkdir -p "$TMP/data"

RC=0
# shellcheck disable=SC2046 # the arguments are words without spaces
BENCH_TERMINATION_LOG="$TMP/fio.term" "$RUNNER" $(runner_fio_args "$TMP/data") \
    >"$TMP/fio.out" 2>"$TMP/fio.err" || RC=$?
[ "$RC" -eq 0 ] || { tail -20 "$TMP/fio.err" >&2; fail "fio run: exit $RC"; }
runner_check "$TMP/fio.out" "$TMP/fio.term" "$RUNNER_FIO_CHECK" ||
    { tail -20 "$TMP/fio.err" >&2; fail "fio result check failed"; }

# refused: latency-zeroing options, as a passthrough and as a flag
for bad in "-- --gtod_reduce=1" "-- --disable_clat=1" "--gtod_reduce"; do
    RC=0
    # shellcheck disable=SC2086
    "$RUNNER" fio --directory "$TMP/data" --rw read --bs 4k --size 1M --runtime 1 $bad \
        >"$TMP/bad.out" 2>"$TMP/bad.err" || RC=$?
    [ "$RC" -eq 1 ] || fail "fio with '$bad': exit $RC, want 1"
    python3 - "$TMP/bad.out" <<'PY' || fail "refusal of '$bad' not explained"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert r["exitCode"] == 1 and r["complete"] is False
e = " ".join(r["errors"])
assert "gtod_reduce" in e or "disable_clat" in e, e
PY
done
[ -n "$(find "$TMP/data" -type f -print -quit)" ] || fail "fio wrote nothing in the directory"

# parse fio: the same parser on fio's own JSON output
fio --output-format=json --name=p --directory="$TMP/data" --rw=randwrite --bs=4k --size=1M \
    --ioengine=psync --fsync=4 >"$TMP/raw.json" 2>/dev/null || fail "bare fio failed"
"$RUNNER" parse fio <"$TMP/raw.json" >"$TMP/parse.out" 2>/dev/null || fail "parse fio exited $?"
python3 - "$TMP/parse.out" "$TMP/raw.json" <<'PY' || fail "parse fio check failed"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
raw = json.load(open(sys.argv[2]))
j = r["fio"]["jobs"][0]
assert abs(j["write"]["iops"] - raw["jobs"][0]["write"]["iops"]) < 0.01
assert j["sync"]["p99"] > 0
PY

# parse fio and fio agree on output without latencies: a real fio run with gtod_reduce=1 keeps
# its iops, has null latencies and an errors[] entry naming the job and the cause
fio --output-format=json --name=fast --directory="$TMP/data" --rw=randread --bs=4k --size=1M \
    --ioengine=psync --gtod_reduce=1 >"$TMP/gtod.json" 2>/dev/null || fail "bare fio (gtod_reduce) failed"
"$RUNNER" parse fio <"$TMP/gtod.json" >"$TMP/gtod.out" 2>/dev/null || fail "parse fio (gtod_reduce) exited $?"
python3 - "$TMP/gtod.out" <<'PY' || fail "parse fio on gtod_reduce output"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
j = r["fio"]["jobs"][0]
assert j["read"]["iops"] > 0 and j["read"]["clatUs"] is None, j
assert any("fast" in e and "gtod_reduce" in e for e in r["errors"]), r["errors"]
PY
pass "fio psync+fdatasync and libaio+direct jobs; gtod_reduce refused; parse fio (also without latencies)"
