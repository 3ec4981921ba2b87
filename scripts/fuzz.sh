#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a given time each, one at a time,
# and prints runs/s and crashes per target. Not run by CI.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 600 s, every target)
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Seeds: fuzz/seeds/TARGET (committed: hostile inputs of issue 25's classes),
# the shared corpus (../shared, or $IRLINT_SHARED) where a target reads its
# format, and tests/fixtures. New inputs go to fuzz/corpus/TARGET, crashes to
# fuzz/artifacts/TARGET (both ignored by git).
#
# Environment: FUZZ_NICE (default 10), FUZZ_MAX_LEN (default 262144 bytes),
# FUZZ_RSS_MB (default 2048), FUZZ_TIMEOUT (seconds per input, default 10).
set -euo pipefail

secs=${1:-600}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${IRLINT_SHARED:-$root/../shared}
nice_level=${FUZZ_NICE:-10}
max_len=${FUZZ_MAX_LEN:-262144}
rss_mb=${FUZZ_RSS_MB:-2048}
timeout_s=${FUZZ_TIMEOUT:-10}
cd "$root/fuzz"

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: needs the nightly toolchain and cargo-fuzz (rustup toolchain install nightly; cargo install cargo-fuzz)" >&2
    exit 2
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# Seed directories for a target: its own seeds, then the corpus of its format.
seeds_for() {
    local t=$1 dirs=("$root/fuzz/seeds/$t")
    case $t in
        ptx) dirs+=("$shared/corpus/ptx" "$root/tests/fixtures/ptx" "$root/tests/fixtures/ptx_desc" "$root/tests/fixtures/ptx_loc" "$root/tests/fixtures/ptx_nvcc") ;;
        spirv) dirs+=("$shared/corpus/spirv" "$root/tests/fixtures/slang") ;;
        bitstream | dxil_module | container | containers) dirs+=("$shared/corpus/dxil" "$shared/corpus/dxbc" "$root/tests/fixtures/dxil") ;;
        pipeline) dirs+=("$shared/corpus" "$shared/hostile" "$root/tests/fixtures" "$root/fuzz/seeds/container" "$root/fuzz/seeds/spirv") ;;
        atoms) dirs+=("$root/tests/data/atoms") ;;
    esac
    for d in "${dirs[@]}"; do
        [ -d "$d" ] && printf '%s\n' "$d"
    done
    return 0
}

echo "building ${#targets[@]} fuzz targets (nightly, release with debug assertions)..."
nice -n "$nice_level" cargo +nightly fuzz build >/dev/null

mkdir -p logs
declare -a rows
status=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    mapfile -t seeds < <(seeds_for "$t")
    before=$(find "artifacts/$t" -type f | wc -l)
    log="logs/$t.log"
    echo "fuzzing $t for ${secs} s (seeds: ${seeds[*]:-none})..."
    start=$(date +%s)
    set +e
    nice -n "$nice_level" cargo +nightly fuzz run "$t" "corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb="$rss_mb" -timeout="$timeout_s" \
        -print_final_stats=1 -close_fd_mask=3 >"$log" 2>&1
    rc=$?
    set -e
    took=$(($(date +%s) - start))
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    after=$(find "artifacts/$t" -type f | wc -l)
    crashes=$((after - before))
    if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
        crashes="? (exit $rc, see fuzz/$log)"
    fi
    [ "$crashes" != 0 ] && status=1
    rows+=("$(printf '%-12s %7s s %12s runs %8s runs/s  crashes: %s' "$t" "$took" "${runs:-?}" "${rate:-?}" "$crashes")")
done

echo
echo "target        time          runs      runs/s  crashes"
printf '%s\n' "${rows[@]}"
[ "$status" -eq 0 ] || echo "crash inputs are in fuzz/artifacts/TARGET; reproduce with: cargo +nightly fuzz run TARGET FILE"
exit "$status"
