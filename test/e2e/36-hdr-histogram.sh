#!/usr/bin/env bash
# The merged latency histogram in HdrHistogram's standard V2 compressed base64 encoding, decoded by
# a second, independent implementation (the npm package hdr-histogram-js): same count, same min and
# max buckets, and at every percentile the value HdrHistogram computes itself equals this
# histogram's bucket at HdrHistogram's rank. Logs: the recorded pgbench -l fixtures, and a
# synthetic one with 100,000 transactions spread over six decades.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
PROG="$BUILD/itest/hdr_encode"
[ -x "$PROG" ] || fail "$PROG missing (make unit-bins)"
HDR="$ROOT/test/sim/node_modules/hdr-histogram-js"
[ -d "$HDR" ] || fail "hdr-histogram-js missing (make deps installs test/sim's node modules)"

python3 - "$TMP/synthetic.log" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    for i in range(100000):
        lat = int(10 ** random.uniform(1, 7))  # 10 us .. 10 s
        f.write("%d %d %d 0 %d %d\n" % (i % 8, i, lat, 1700000000 + i // 1000, i % 1000 * 1000))
PY

n=0
for set in log-tpcb log-rate log-retries log-failed synthetic; do
    if [ "$set" = synthetic ]; then files=("$TMP/synthetic.log"); else files=("$ROOT"/test/fixtures/pgbench/"$set"/*); fi
    "$PROG" "${files[@]}" >"$TMP/$set.json" || fail "$set: encoding failed"
    HDR="$HDR" node - "$TMP/$set.json" <<'JS' || fail "$set: hdr-histogram-js disagrees"
const hdr = require(process.env.HDR);
const o = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
if (!o.base64.startsWith("HISTFAAA")) throw new Error("not a V2 compressed encoding: " + o.base64.slice(0, 12));
const h = hdr.decodeFromCompressedBase64(o.base64);
const eq = (what, got, want) => { if (got !== want) throw new Error(`${what}: decoded ${got}, want ${want}`); };
eq("count", h.totalCount, o.count);
eq("max", h.maxValue, o.maxHigh);
eq("min", h.minNonZeroValue, o.minLow);
for (const [q, want] of Object.entries(o.percentiles)) eq("p" + q, h.getValueAtPercentile(Number(q)), want);
console.log(`count ${o.count}, p99 ${h.getValueAtPercentile(99)} us`);
JS
    n=$((n + 1))
done
pass "$n histograms decoded by hdr-histogram-js with the same percentiles"
