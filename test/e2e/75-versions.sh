#!/usr/bin/env bash
# One version everywhere (scripts/check-versions.sh): the VERSION file against the chart's
# version/appVersion, deploy/install.yaml's image references, the krew manifest, the --version of
# pgbench-operator, pgbench-runner and kubectl-pgbench (built here and inside the images), and the
# images' OCI labels. The generated files are fresh (render-install.sh --check), and the check
# fails when any one of them disagrees: a copy of the tree with a stale appVersion, one with a
# bumped VERSION, and a binary that answers another version.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

scripts/render-install.sh --check || fail "Chart.yaml, plugins/pgbench.yaml or deploy/install.yaml is stale"
args=(--bin "$BIN")
# shellcheck source=scripts/container-engine.sh
. scripts/container-engine.sh
if engine_detect; then
    env_need_image operator
    env_need_image runner
    args+=(--images)
else
    note "no container engine: the images' labels and --version are not checked"
fi
scripts/check-versions.sh "${args[@]}" >"$TMP/versions.txt" 2>&1 || { cat "$TMP/versions.txt"; fail "versions disagree"; }
cat "$TMP/versions.txt" >&2
for want in "pgbench-operator --version" "pgbench-runner --version" "kubectl-pgbench --version" \
    "install.yaml operator image" "krew spec.version" "Chart.yaml appVersion"; do
    grep -q "^ok   $want" "$TMP/versions.txt" || fail "no '$want' check"
done
if [ "${args[*]}" != "--bin $BIN" ]; then
    [ "$(grep -c '^ok   .* label ' "$TMP/versions.txt")" = 8 ] || fail "not every label was checked"
fi

# every disagreement is caught: a copy of what carries the version, spoilt one way at a time
copy() {
    rm -rf "$TMP/tree" && mkdir -p "$TMP/tree/charts" "$TMP/tree/deploy" "$TMP/tree/plugins"
    cp VERSION "$TMP/tree/" && cp -r charts/pgbench-operator "$TMP/tree/charts/"
    cp deploy/install.yaml "$TMP/tree/deploy/" && cp plugins/pgbench.yaml "$TMP/tree/plugins/"
}
copy
scripts/check-versions.sh --root "$TMP/tree" >/dev/null || fail "the unchanged copy disagrees"
sed -i 's/^appVersion: .*/appVersion: "0.0.9"/' "$TMP/tree/charts/pgbench-operator/Chart.yaml"
if scripts/check-versions.sh --root "$TMP/tree" >"$TMP/app.txt"; then fail "a stale appVersion passed"; fi
grep -q "^DIFF Chart.yaml appVersion: '0.0.9', want" "$TMP/app.txt" || { cat "$TMP/app.txt"; fail "the appVersion disagreement is not named"; }
[ "$(grep -c '^DIFF' "$TMP/app.txt")" = 1 ] || { cat "$TMP/app.txt"; fail "more than the appVersion disagrees"; }
copy
echo 9.9.9 >"$TMP/tree/VERSION"
if scripts/check-versions.sh --root "$TMP/tree" >"$TMP/bump.txt"; then fail "a bumped VERSION passed"; fi
for want in "Chart.yaml version" "install.yaml operator image" "install.yaml --runner-image" "krew spec.version"; do
    grep -q "^DIFF $want" "$TMP/bump.txt" || { cat "$TMP/bump.txt"; fail "bumped VERSION: no DIFF for $want"; }
done
mkdir -p "$TMP/bin"
for p in pgbench-operator pgbench-runner; do ln -s "$BIN/$p" "$TMP/bin/$p"; done
printf '#!/bin/sh\necho "kubectl-pgbench 0.0.1 (commit %s)"\n' "$(git rev-parse --short HEAD)" >"$TMP/bin/kubectl-pgbench"
chmod +x "$TMP/bin/kubectl-pgbench"
if scripts/check-versions.sh --bin "$TMP/bin" >"$TMP/bin.txt"; then fail "a binary of another version passed"; fi
grep -q "^DIFF kubectl-pgbench --version" "$TMP/bin.txt" || { cat "$TMP/bin.txt"; fail "the binary's disagreement is not named"; }
pass "VERSION, chart, install.yaml, krew manifest, --version of the three programs and the images' labels agree; each disagreement is caught"
