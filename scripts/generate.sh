#!/usr/bin/env bash
# Writes what the contract tables (pkg/bench/fields.def: the result and a BenchmarkRun's status;
# pkg/bench/sweep_fields.def: a BenchmarkSweep's status) define into the files that must agree
# with them, between "BEGIN generated" and "END generated" marker lines:
#   crds/benchmarkrun.yaml   the status schema and the printer columns
#   crds/benchmarksweep.yaml the status schema and the printer columns
#   docs/result-schema.md    the field tables
#   docs/spec.md             the status tables of both kinds
#   docs/design.md           the runner's commands, from `pgbench-runner --help` (its flag table)
#   docs/troubleshooting.md  "Reading a verdict": the rules table pkg/bench/verdict.def
# and whole:
#   pkg/controller/cache_keep.h  the status paths the controllers read back (the cache keep-lists)
# then copies the CRDs into the chart and deploy/install.yaml (scripts/render-install.sh).
#
# usage: scripts/generate.sh           regenerate (needs build/bin/pgbench-gen-contract: make)
#        scripts/generate.sh --check   fail with a diff when a committed file differs
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${BUILD:=build}"
GEN="$BUILD/bin/pgbench-gen-contract"
[ -x "$GEN" ] || { echo "generate: $GEN missing; run make first" >&2; exit 2; }
check=0
[ "${1:-}" = "--check" ] && check=1

# splice FILE WHICH(n-th marker pair, 1-based) COMMAND...: replaces the lines between that
# marker pair by the command's output; prints the new file to stdout.
splice() {
    local file="$1" which="$2"
    shift 2
    local gen
    gen="$("$@")"
    GENERATED="$gen" python3 - "$file" "$which" <<'EOF'
import os, sys
path, which = sys.argv[1], int(sys.argv[2])
lines = open(path).read().split('\n')
gen = os.environ['GENERATED'].split('\n')
n = 0
out, i = [], 0
while i < len(lines):
    out.append(lines[i])
    if 'BEGIN generated' in lines[i]:
        n += 1
        j = i + 1
        while j < len(lines) and 'END generated' not in lines[j]:
            j += 1
        if j == len(lines):
            sys.exit(f'{path}: BEGIN generated without END generated')
        if n == which:
            out.extend(gen)
        else:
            out.extend(lines[i + 1:j])
        i = j
        continue
    i += 1
if n < which:
    sys.exit(f'{path}: marker pair {which} not found')
sys.stdout.write('\n'.join(out))
EOF
}

# the runner's commands as its --help prints them (pkg/bench/runner_args.c)
runner_commands() {
    echo '```'
    "$BUILD/bin/pgbench-runner" --help | sed -n '/^commands:/,/^$/p' | sed '1d;$d'
    echo '```'
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/crds" "$tmp/docs" "$tmp/pkg/controller"
splice crds/benchmarkrun.yaml 1 "$GEN" crd-columns 8 >"$tmp/crd1"
cp crds/benchmarkrun.yaml "$tmp/orig.yaml"
cp "$tmp/crd1" "$tmp/crds.yaml"
splice "$tmp/crds.yaml" 2 "$GEN" crd-status 16 >"$tmp/crds/benchmarkrun.yaml"
splice docs/result-schema.md 1 "$GEN" docs-result >"$tmp/docs/result-schema.md"
splice crds/benchmarksweep.yaml 1 "$GEN" crd-sweep-columns 8 >"$tmp/sweep1.yaml"
splice "$tmp/sweep1.yaml" 2 "$GEN" crd-sweep-status 16 >"$tmp/crds/benchmarksweep.yaml"
splice docs/spec.md 1 "$GEN" docs-status >"$tmp/spec1.md"
splice "$tmp/spec1.md" 2 "$GEN" docs-sweep-status >"$tmp/docs/spec.md"
"$GEN" cache-keep >"$tmp/pkg/controller/cache_keep.h"
splice docs/design.md 1 runner_commands >"$tmp/docs/design.md"
splice docs/troubleshooting.md 1 "$GEN" docs-verdict >"$tmp/docs/troubleshooting.md"

status=0
for f in crds/benchmarkrun.yaml crds/benchmarksweep.yaml docs/result-schema.md docs/spec.md \
    docs/design.md docs/troubleshooting.md pkg/controller/cache_keep.h; do
    if [ "$check" = 1 ]; then
        if ! diff -u "$f" "$tmp/$f" >"$tmp/diff"; then
            echo "generate: $f differs from the contract tables in pkg/bench; run make generate" >&2
            head -40 "$tmp/diff" >&2
            status=1
        fi
    elif ! cmp -s "$f" "$tmp/$f"; then
        cp "$tmp/$f" "$f"
        echo "generate: wrote $f"
    fi
done
if [ "$check" = 1 ]; then
    for crd in benchmarkrun benchmarksweep; do
        cmp -s crds/$crd.yaml charts/pgbench-operator/crds/$crd.yaml ||
            { echo "generate: the chart's $crd CRD differs from crds/; run make generate" >&2; status=1; }
    done
    [ "$status" = 0 ] && echo "generate: CRDs, docs and cache keep-lists match the tables in pkg/bench"
    exit "$status"
fi
scripts/render-install.sh
