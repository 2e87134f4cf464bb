#!/usr/bin/env bash
# Checks the GitHub Actions workflows (.github/workflows/*.yml) without GitHub:
#   - each passes the schema validation of @action-validator/cli (npm; installed on first use
#     into build/tools/action-validator, pinned);
#   - each `run:` script passes shellcheck, as bash (the workflows' default shell);
#   - no `run:` script interpolates ${{ ... }} (script injection: expressions go through env:).
# usage: scripts/check-workflows.sh [--install] [FILE...]   (--install: only install the validator)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
AV_VERSION=0.6.0
AV_DIR="$ROOT/build/tools/action-validator"
AV="$AV_DIR/node_modules/.bin/action-validator"
if [ ! -x "$AV" ] || [ ! -f "$AV_DIR/.v$AV_VERSION" ]; then
    mkdir -p "$AV_DIR"
    npm install --prefix "$AV_DIR" --no-audit --no-fund --loglevel=error "@action-validator/cli@$AV_VERSION" >/dev/null
    touch "$AV_DIR/.v$AV_VERSION"
fi
[ "${1:-}" != "--install" ] || exit 0
command -v shellcheck >/dev/null || { echo "check-workflows: shellcheck not installed (make deps)" >&2; exit 2; }
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(.github/workflows/*.yml)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rc=0
for f in "${files[@]}"; do
    before="$rc"
    if "$AV" "$f" >"$tmp/av.txt" 2>&1; then
        echo "ok   $f: action-validator"
    else
        echo "FAIL $f: action-validator"
        sed 's/^/     /' "$tmp/av.txt"
        rc=1
    fi
    # every run: script into its own file, named after the job and step
    rm -f "$tmp"/run-*
    python3 - "$f" "$tmp" <<'PY' || rc=1
import re, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
bad = 0
for job, j in (wf.get("jobs") or {}).items():
    for i, step in enumerate(j.get("steps") or []):
        if "run" not in step:
            continue
        name = f"{job}-{i}"
        if "${{" in step["run"]:
            print(f"FAIL {sys.argv[1]}: job {job} step {i} ({step.get('name', '')}): ${{{{ }}}} in run:; pass it through env:")
            bad += 1
        with open(f"{sys.argv[2]}/run-{name}.sh", "w") as out:
            out.write("#!/usr/bin/env bash\nset -e\n" + step["run"])
sys.exit(1 if bad else 0)
PY
    n=0
    for s in "$tmp"/run-*.sh; do
        [ -e "$s" ] || continue
        n=$((n + 1))
        if ! shellcheck -s bash -e SC2129 "$s" >"$tmp/sc.txt" 2>&1; then
            echo "FAIL $f: shellcheck of the run: script of $(basename "$s" .sh | sed 's/^run-//')"
            sed 's/^/     /' "$tmp/sc.txt"
            rc=1
        fi
    done
    if [ "$rc" = "$before" ]; then
        echo "ok   $f: $n run: scripts through shellcheck"
    fi
done
exit "$rc"
