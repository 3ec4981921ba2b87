#!/usr/bin/env bash
# Profile-guided release build of the irlint binary.
#
#   scripts/pgo.sh            # train on tests/fixtures, write target/pgo/release/irlint
#   scripts/pgo.sh DIR ...    # train on these inputs instead (any files `check` reads)
#
# 1. builds an instrumented binary (target/pgo-gen, `-Cprofile-generate`);
# 2. runs `irlint check` over the training inputs, which writes raw profiles;
# 3. merges them with the `llvm-profdata` of the Rust toolchain (rustup's
#    `llvm-tools` component, installed when missing: its LLVM must be the one
#    rustc uses);
# 4. builds target/pgo/release/irlint with `-Cprofile-use`.
#
# The default training set is the repository's own fixtures (DXIL, SPIR-V,
# PTX), so the build needs nothing outside the repository, and the real PTX
# sets `scripts/bench.sh --ptx` measures are not trained on. The plain
# `cargo build --release` stays the reference build; docs/performance.md
# gives the figures of both.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAIN=("$@")
[ ${#TRAIN[@]} -gt 0 ] || TRAIN=(tests/fixtures)

SYSROOT=$(rustc --print sysroot)
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$SYSROOT/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
    rustup component add llvm-tools >/dev/null
fi
[ -x "$PROFDATA" ] || { echo "pgo: llvm-profdata not found at $PROFDATA" >&2; exit 1; }

DATA=$(pwd)/target/pgo-data
rm -rf "$DATA"
mkdir -p "$DATA"
echo "pgo: instrumented build (target/pgo-gen)"
CARGO_TARGET_DIR=target/pgo-gen RUSTFLAGS="-Cprofile-generate=$DATA" cargo build --release --quiet --bin irlint
echo "pgo: training on ${TRAIN[*]}"
# Findings make `check` exit 1; a training input that does not read exits 2.
# Both are training, not failures.
for t in "${TRAIN[@]}"; do
    LLVM_PROFILE_FILE="$DATA/%p-%m.profraw" target/pgo-gen/release/irlint check -j 1 --format json "$t" >/dev/null || true
done
"$PROFDATA" merge -o "$DATA/merged.profdata" "$DATA"/*.profraw
echo "pgo: optimised build (target/pgo/release/irlint)"
CARGO_TARGET_DIR=target/pgo RUSTFLAGS="-Cprofile-use=$DATA/merged.profdata" cargo build --release --quiet --bin irlint
ls -l target/pgo/release/irlint
