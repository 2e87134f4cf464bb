#!/usr/bin/env bash
# The layering check (scripts/layers.sh, part of make lint) passes on the tree as it is, and fails
# on a copy of the tree with each kind of edge it exists to refuse: an upward include (pkg/kube
# including pkg/controller), pkg/ including cmd/, an include the Makefile's deps_ lines do not
# allow (the plugin including the controller), and an include cycle between two modules of one
# package; each named with the file and line.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

scripts/layers.sh >"$TMP/clean.txt" 2>&1 || { cat "$TMP/clean.txt" >&2; fail "layers.sh refuses the tree as it is"; }
grep -q 'no upward include, no include cycle' "$TMP/clean.txt" || fail "no verdict line: $(cat "$TMP/clean.txt")"

# a copy of the tree: what layers.sh reads (the Makefile, the sources) in a git repository
copy="$TMP/tree"
mkdir -p "$copy"
git ls-files -z Makefile scripts/layers.sh 'pkg/*' 'cmd/*' | xargs -0 cp --parents -t "$copy"
git -C "$copy" init -q && git -C "$copy" add -A
broken() { # WANT FILE LINE: layers.sh fails on the copy with LINE appended to FILE, naming WANT
    cp "$copy/$2" "$TMP/saved"
    printf '%s\n' "$3" >>"$copy/$2"
    if (cd "$copy" && scripts/layers.sh) >"$TMP/out.txt" 2>&1; then
        fail "layers.sh accepts $2 with: $3"
    fi
    grep -qF -- "$1" "$TMP/out.txt" || fail "layers.sh does not say '$1' for $2: $(cat "$TMP/out.txt")"
    cp "$TMP/saved" "$copy/$2"
}
broken 'pkg/kube/util.c:' pkg/kube/util.c '#include "pkg/controller/cache.h"'
broken 'pkg/ must not include cmd/' pkg/bench/text.c '#include "cmd/runner/runner.h"'
broken 'pkg/plugin may include only' pkg/plugin/yaml.c '#include "pkg/controller/controller.h"'
broken 'include cycle between modules: ' pkg/bench/histogram.h '#include "pkg/bench/aggregate.h"'
(cd "$copy" && scripts/layers.sh) >/dev/null || fail "the copy, restored, is refused"
pass "upward includes, pkg -> cmd, edges the Makefile does not allow and module cycles are refused"
