#!/usr/bin/env bash
# `make bench`: prints the speed and memory figures. Each script prints its own lines.
set -euo pipefail
cd "$(dirname "$0")/.."
for s in scripts/bench-runner.sh scripts/bench-operator.sh scripts/bench-progress.sh scripts/bench-start.sh scripts/bench-init.sh scripts/bench-phases.sh; do
    if [ -x "$s" ]; then
        "$s"
    else
        echo "bench: $s missing" >&2
        exit 1
    fi
done
