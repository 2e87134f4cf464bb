#!/usr/bin/env bash
# clang-format (must produce no change) and clang-tidy (bugprone, clang-analyzer, cert-err33-c).
set -uo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h'; git ls-files --others --exclude-standard '*.c' '*.h')
rc=0
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/pgbo-format.log; then
    grep -c 'error:' /tmp/pgbo-format.log | xargs -I{} echo "clang-format: {} places differ (make format fixes them)"
    head -20 /tmp/pgbo-format.log
    rc=1
fi
PG_INC="$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)"
srcs=()
for f in "${files[@]}"; do case "$f" in *.c) srcs+=("$f") ;; esac; done
if ! clang-tidy --quiet "${srcs[@]}" -- -std=c11 -D_GNU_SOURCE -I. -I"$PG_INC" \
    >/tmp/pgbo-tidy.log 2>&1; then
    rc=1
fi
if grep -E 'warning:|error:' /tmp/pgbo-tidy.log | grep -v 'warnings generated' >/tmp/pgbo-tidy.hits; then
    cat /tmp/pgbo-tidy.hits | head -60
    echo "clang-tidy: $(wc -l </tmp/pgbo-tidy.hits) findings"
    rc=1
fi
# Function size: cmd/ and pkg/ functions over 80 lines or cyclomatic complexity 25 (pmccabe:
# traditional McCabe, lines) are listed, largest first, and fail the lint.
if command -v pmccabe >/dev/null; then
    mapfile -t prod < <(printf '%s\n' "${srcs[@]}" | grep -E '^(cmd|pkg)/')
    pmccabe "${prod[@]}" 2>/dev/null |
        awk -F'\t' '$5 > 80 || $2 > 25 { printf "%5d lines  complexity %3d  %s\n", $5, $2, $6 }' |
        sort -rn >/tmp/pgbo-size.hits
    if [ -s /tmp/pgbo-size.hits ]; then
        cat /tmp/pgbo-size.hits
        echo "function size: $(wc -l </tmp/pgbo-size.hits) functions over 80 lines or complexity 25"
        rc=1
    else
        echo "function size: none over 80 lines or complexity 25"
    fi
else
    echo "function size: pmccabe missing (make deps installs it)"
fi
[ "$rc" -eq 0 ] && echo "lint: clean"
exit "$rc"
