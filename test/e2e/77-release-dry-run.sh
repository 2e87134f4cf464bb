#!/usr/bin/env bash
# The release without a registry: `make release-dry-run` (scripts/release.sh dry-run) makes every
# artifact a v* tag publishes that needs no registry, within its time budget (images reused when
# up to date): the chart package, install.yaml with the release's image references, the CRDs, the
# plugin archive (bin/kubectl-pgbench and its libraries; it runs unpacked, from a krew-like
# install), the krew manifest with the archive's real sha256, SHA256SUMS; versions agree
# (check-versions). The workflows that do the rest pass action-validator and shellcheck
# (scripts/check-workflows.sh), which must also refuse a broken workflow.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

scripts/check-workflows.sh >"$TMP/wf.txt" 2>&1 || { cat "$TMP/wf.txt"; fail "the workflows do not validate"; }
cat "$TMP/wf.txt" >&2
# ... and refuses: an unknown key, a run: script shellcheck flags, ${{ }} inside run:
mkdir -p "$TMP/wf"
sed 's/^    runs-on: ubuntu-24.04$/    runs-onn: ubuntu-24.04/' .github/workflows/ci.yml >"$TMP/wf/schema.yml"
sed 's/^        run: make test$/        run: cd $HOME\/x; make test/' .github/workflows/ci.yml >"$TMP/wf/shell.yml"
sed 's/^        run: make test$/        run: make test TAG=${{ github.ref_name }}/' .github/workflows/ci.yml >"$TMP/wf/inject.yml"
for bad in schema shell inject; do
    cmp -s .github/workflows/ci.yml "$TMP/wf/$bad.yml" && fail "could not spoil ci.yml ($bad)"
    if scripts/check-workflows.sh "$TMP/wf/$bad.yml" >"$TMP/wf-$bad.txt" 2>&1; then
        cat "$TMP/wf-$bad.txt"
        fail "check-workflows accepted a workflow with a $bad error"
    fi
done
grep -q "FAIL .*schema.yml: action-validator" "$TMP/wf-schema.txt" || { cat "$TMP/wf-schema.txt"; fail "schema error not reported"; }
grep -q "SC2086" "$TMP/wf-shell.txt" || { cat "$TMP/wf-shell.txt"; fail "shellcheck finding not reported"; }
grep -q 'in run:; pass it through env:' "$TMP/wf-inject.txt" || { cat "$TMP/wf-inject.txt"; fail "\${{ }} in run: not reported"; }

env_need_image operator
env_need_image runner
start=$SECONDS
make -s release-dry-run >"$TMP/dry.txt" 2>&1 || { cat "$TMP/dry.txt"; fail "make release-dry-run failed"; }
took=$((SECONDS - start))
cat "$TMP/dry.txt" >&2
[ "$took" -le 120 ] || fail "the dry run took $took s (budget 120 s with the images up to date)"
version="$(cat VERSION)"
arch="$(dpkg --print-architecture)"
out=build/release
for f in "pgbench-operator-$version.tgz" install.yaml benchmarkrun.yaml benchmarksweep.yaml pgbench.yaml \
    "kubectl-pgbench_linux_$arch.tar.gz" SHA256SUMS; do
    [ -s "$out/$f" ] || fail "no $out/$f"
done
grep -q "check-versions: version $version, 0 disagreement" "$TMP/dry.txt" || fail "check-versions did not pass in the dry run"

# the chart package is the chart of this version, its CRDs those of the release
HELM="$(scripts/render-install.sh --which-helm)"
"$HELM" show chart "$out/pgbench-operator-$version.tgz" | grep -qx "appVersion: $version" || fail "chart package appVersion"
"$HELM" template x "$out/pgbench-operator-$version.tgz" | grep -q "image: \"ghcr.io/pgbench-operator/operator:$version\"" ||
    fail "the packaged chart does not run the release's operator image"
cmp -s crds/benchmarkrun.yaml "$out/benchmarkrun.yaml" || fail "benchmarkrun.yaml differs from crds/"

# the krew manifest holds the real sum and the archive installs as krew would and runs
python3 - "$out/pgbench.yaml" "$out/kubectl-pgbench_linux_$arch.tar.gz" "$arch" "$version" <<'PY' || fail "krew manifest"
import hashlib, sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
p = [p for p in m["spec"]["platforms"] if p["selector"]["matchLabels"]["arch"] == sys.argv[3]]
assert len(p) == 1, m["spec"]["platforms"]
assert p[0]["sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest(), p[0]["sha256"]
assert p[0]["uri"].endswith("/v%s/kubectl-pgbench_linux_%s.tar.gz" % (sys.argv[4], sys.argv[3])), p[0]["uri"]
assert m["spec"]["version"] == "v" + sys.argv[4]
PY
mkdir -p "$TMP/krew/store" "$TMP/krew/bin"
tar -C "$TMP/krew/store" -xzf "$out/kubectl-pgbench_linux_$arch.tar.gz"
ln -s "$TMP/krew/store/bin/kubectl-pgbench" "$TMP/krew/bin/kubectl-pgbench"
# run through the symlink krew makes, with the libraries of the archive
"$TMP/krew/bin/kubectl-pgbench" --version | grep -q "^kubectl-pgbench $version (commit " || fail "the archived plugin's --version"
# (the loader's own account: $ORIGIN is the real directory behind the symlink)
LD_DEBUG=libs "$TMP/krew/bin/kubectl-pgbench" --version 2>"$TMP/ld.txt" >/dev/null || fail "the plugin did not run"
for lib in libuv libcurl libnghttp2; do
    grep -q "calling init: $TMP/krew/store/bin/../lib/$lib" "$TMP/ld.txt" ||
        { grep "calling init" "$TMP/ld.txt" >&2; fail "the plugin does not load its own $lib"; }
done
pass "make release-dry-run in ${took} s: chart, install.yaml, CRDs, plugin archive, krew manifest with its sum, versions agree; workflows validate"
