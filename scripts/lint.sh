#!/usr/bin/env bash
# clang-format (must produce no change) and clang-tidy (bugprone, clang-analyzer, cert-err33-c).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# Reports go to $BUILD/lint (make passes its BUILD), so lints run side by side do not share them.
out="${BUILD:-build}/lint"
mkdir -p "$out"
mapfile -t files < <(git ls-files '*.c' '*.h'; git ls-files --others --exclude-standard '*.c' '*.h')
rc=0
if ! clang-format --dry-run --Werror "${files[@]}" 2>"$out"/format.log; then
    grep -c 'error:' "$out"/format.log | xargs -I{} echo "clang-format: {} places differ (make format fixes them)"
    head -20 "$out"/format.log
    rc=1
fi
PG_INC="$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)"
srcs=()
for f in "${files[@]}"; do case "$f" in *.c) srcs+=("$f") ;; esac; done
# One clang-tidy per file (LINT_JOBS at once, default 2): clang-tidy 14 given every file in one
# process carries errors from file to file and can crash; a file it cannot finish is a finding.
rm -rf "$out"/tidy && mkdir -p "$out"/tidy
# shellcheck disable=SC2016 # the inner script expands its own arguments
printf '%s\n' "${srcs[@]}" | xargs -P "${LINT_JOBS:-2}" -I{} sh -c '
    log="$2/$(printf %s "$1" | tr / _).log"
    clang-tidy --quiet "$1" -- -std=c11 -D_GNU_SOURCE -I. -I"$3" >"$log" 2>&1 ||
        echo "$1: error: clang-tidy exited $?" >>"$log"' _ {} "$out"/tidy "$PG_INC"
cat "$out"/tidy/*.log >"$out"/tidy.log
if grep -E 'warning:|error:' "$out"/tidy.log | grep -v 'warnings generated' >"$out"/tidy.hits; then
    head -60 "$out"/tidy.hits
    echo "clang-tidy: $(wc -l <"$out"/tidy.hits) findings"
    rc=1
fi
# Function size: cmd/ and pkg/ functions over 80 lines or cyclomatic complexity 25 (pmccabe:
# traditional McCabe, lines) are listed, largest first, and fail the lint.
if command -v pmccabe >/dev/null; then
    mapfile -t prod < <(printf '%s\n' "${srcs[@]}" | grep -E '^(cmd|pkg)/')
    pmccabe "${prod[@]}" 2>/dev/null |
        awk -F'\t' '$5 > 80 || $2 > 25 { printf "%5d lines  complexity %3d  %s\n", $5, $2, $6 }' |
        sort -rn >"$out"/size.hits
    if [ -s "$out"/size.hits ]; then
        cat "$out"/size.hits
        echo "function size: $(wc -l <"$out"/size.hits) functions over 80 lines or complexity 25"
        rc=1
    else
        echo "function size: none over 80 lines or complexity 25"
    fi
else
    echo "function size: pmccabe missing (make deps installs it)"
fi
# Layering: no upward include, no include cycle (scripts/layers.sh holds the rules).
scripts/layers.sh || rc=1
[ "$rc" -eq 0 ] && echo "lint: clean"
exit "$rc"
