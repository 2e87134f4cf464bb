#!/usr/bin/env bash
# Builds each libFuzzer target (test/fuzz/fuzz_*.c, linked against the package its first line
# names: /* fuzz-package: kube */, and test/fuzz/env.c, the environment of every target) and
# runs it briefly. FUZZ_SECONDS sets the time per target.
# Run by `make fuzz`, which passes BUILD (binaries and corpora go to $BUILD/fuzz) and each
# package's link list as FUZZ_DEPS_<pkg> (the Makefile's deps_<pkg>, the one definition).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
out="${BUILD:-build}/fuzz"
mkdir -p "$out"
PG_INC="$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)"
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(test/fuzz/fuzz_*.c)
for t in "${targets[@]}"; do
    [ -e "$t" ] || continue
    name="$(basename "$t" .c)"
    pkg="$(sed -n '1s#.*fuzz-package: *\([a-z]*\).*#\1#p' "$t")"
    [ -n "$pkg" ] || { echo "$t: first line must be /* fuzz-package: <pkg> */" >&2; exit 1; }
    deps_var="FUZZ_DEPS_$pkg"
    [ -n "${!deps_var:-}" ] || { echo "$t: no $deps_var (run it through make fuzz)" >&2; exit 1; }
    srcs=()
    for p in ${!deps_var}; do srcs+=(pkg/"$p"/*.c); done
    clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -I. -I"$PG_INC" \
        "$t" test/fuzz/env.c "${srcs[@]}" -o "$out/$name" -lcurl -luv -lcjson -lyaml -lpq -lz -lm -lpthread
    corpus="$out/$name.corpus"
    mkdir -p "$corpus"
    seeds="test/fuzz/corpus/${name#fuzz_}"
    [ -d "$seeds" ] || seeds=""
    echo "fuzz: $name for ${seconds}s"
    "$out/$name" -max_total_time="$seconds" -max_len=65536 "$corpus" $seeds 2>"$out/$name.log" ||
        { tail -40 "$out/$name.log"; exit 1; }
    grep -E '^(#[0-9]+ *DONE|Done)' "$out/$name.log" | tail -1
done
