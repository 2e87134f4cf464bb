#!/usr/bin/env bash
# Checks that everything carrying the project's version agrees with the VERSION file:
#   - the chart's version and appVersion, and values.yaml leaving both image tags to appVersion;
#   - the operator and runner images deploy/install.yaml runs (<registry>/operator:<version>, and
#     --runner-image=<registry>/runner:<version>);
#   - the krew manifest: spec.version v<version>, every uri under .../v<version>/;
#   - with --bin DIR: `--version` of pgbench-operator, pgbench-runner and kubectl-pgbench
#     ("<program> <version> (commit <hash>)", the hash a commit of this repository);
#   - with --images: both images' OCI labels (version; revision = the commit their binaries
#     print; source = the chart's sources; licenses = the license the project declares, in
#     test/sim/package.json) and the --version of the binaries inside them.
#
# usage: scripts/check-versions.sh [--root DIR] [--bin DIR] [--images] [--install FILE]
#            [--krew FILE] [--registry REG]
#   --root DIR      the tree whose files are checked (default: this repository)
#   --install FILE  another install.yaml (a release's), --krew FILE another krew manifest
#   --registry REG  the images' registry in install.yaml (default ghcr.io/pgbench-operator)
# Prints one line per check and exits 1 when any disagrees.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TREE="$ROOT"
BINDIR=""
IMAGES=0
INSTALL=""
KREW=""
REGISTRY="ghcr.io/pgbench-operator"
while [ $# -gt 0 ]; do
    case "$1" in
    --root) TREE="$2"; shift 2 ;;
    --bin) BINDIR="$2"; shift 2 ;;
    --images) IMAGES=1; shift ;;
    --install) INSTALL="$2"; shift 2 ;;
    --krew) KREW="$2"; shift 2 ;;
    --registry) REGISTRY="$2"; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "check-versions: unknown argument $1" >&2; exit 2 ;;
    esac
done
: "${INSTALL:=$TREE/deploy/install.yaml}"
: "${KREW:=$TREE/plugins/pgbench.yaml}"

# what runs: "<program> <output of --version>" lines, from the host binaries and the images
runs="$(mktemp)"
trap 'rm -f "$runs"' EXIT
if [ -n "$BINDIR" ]; then
    for p in pgbench-operator pgbench-runner kubectl-pgbench; do
        echo "bin $p $("$BINDIR/$p" --version 2>&1 | head -1)" >>"$runs"
    done
fi
if [ "$IMAGES" = 1 ]; then
    # shellcheck source=scripts/container-engine.sh
    . "$ROOT/scripts/container-engine.sh"
    engine_detect || { echo "check-versions: --images needs podman or docker" >&2; exit 2; }
    for name in operator runner; do
        ref="$("$ROOT/scripts/images.sh" --ref "$name")"
        echo "image $name $ref $("$ENGINE" run --rm --read-only --user 65532:65532 "$ref" --version 2>&1 | head -1)" >>"$runs"
        echo "labels $name $(engine_image_field "$ref" '{{json .Config.Labels}}')" >>"$runs"
    done
fi

exec python3 - "$TREE" "$INSTALL" "$KREW" "$REGISTRY" "$runs" "$ROOT" <<'PY'
import json, re, subprocess, sys, yaml
tree, install, krew, registry, runs, root = sys.argv[1:]
version = open(f"{tree}/VERSION").read().strip()
bad = 0
def check(what, got, want):
    global bad
    ok = got == want
    bad += not ok
    print(f"{'ok  ' if ok else 'DIFF'} {what}: {got!r}" + ("" if ok else f", want {want!r}"))

chart = yaml.safe_load(open(f"{tree}/charts/pgbench-operator/Chart.yaml"))
check("Chart.yaml version", str(chart["version"]), version)
check("Chart.yaml appVersion", str(chart["appVersion"]), version)
values = yaml.safe_load(open(f"{tree}/charts/pgbench-operator/values.yaml"))
check("values.yaml image.tag (empty: appVersion)", values["image"]["tag"], "")
check("values.yaml runnerImage.tag (empty: appVersion)", values["runnerImage"]["tag"], "")

images, runner_args = [], []
for d in yaml.safe_load_all(open(install)):
    if d and d.get("kind") == "Deployment":
        for c in d["spec"]["template"]["spec"]["containers"]:
            images.append(c["image"])
            runner_args += [a.split("=", 1)[1] for a in c.get("args", []) if a.startswith("--runner-image=")]
check("install.yaml operator image", images, [f"{registry}/operator:{version}"])
check("install.yaml --runner-image", runner_args, [f"{registry}/runner:{version}"])

m = yaml.safe_load(open(krew))
check("krew spec.version", m["spec"]["version"], f"v{version}")
for p in m["spec"]["platforms"]:
    arch = p["selector"]["matchLabels"]["arch"]
    check(f"krew {arch} uri has /v{version}/", f"/v{version}/" in p["uri"], True)

def commit_of(line):
    mm = re.fullmatch(r"(\S+) (\S+) \(commit ([0-9a-f]{7,40})(-dirty)?\)", line.strip())
    return mm
license_ = json.load(open(f"{root}/test/sim/package.json"))["license"]
revisions = {}
for line in open(runs):
    kind, rest = line.rstrip("\n").split(" ", 1)
    if kind == "bin":
        prog, out = rest.split(" ", 1)
        mm = commit_of(out)
        check(f"{prog} --version", (mm.group(1), mm.group(2)) if mm else out, (prog, version))
        if mm:
            known = subprocess.run(["git", "-C", root, "cat-file", "-e", mm.group(3) + "^{commit}"],
                                   capture_output=True).returncode == 0
            check(f"{prog} commit {mm.group(3)} is in this repository", known, True)
    elif kind == "image":
        name, ref, out = rest.split(" ", 2)
        mm = commit_of(out)
        check(f"{ref} --version", (mm.group(1), mm.group(2)) if mm else out, (f"pgbench-{name}", version))
        revisions[name] = (mm.group(3) + (mm.group(4) or "")) if mm else None
    elif kind == "labels":
        name, labels = rest.split(" ", 1)
        labels = json.loads(labels)
        get = lambda k: labels.get("org.opencontainers.image." + k)
        check(f"{name} label version", get("version"), version)
        check(f"{name} label revision = its binary's commit", get("revision"), revisions.get(name))
        check(f"{name} label source", get("source"), chart["sources"][0])
        check(f"{name} label licenses", get("licenses"), license_)
print(f"check-versions: version {version}, {bad} disagreement(s)")
sys.exit(1 if bad else 0)
PY
