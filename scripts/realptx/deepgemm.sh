#!/bin/bash
# Compile DeepGEMM kernel instantiations (scripts/realptx/dg/*.cu, in the form DeepGEMM's JIT writes
# them) to PTX with nvcc 13.5, flags as DeepGEMM's JIT (csrc/jit/compiler.hpp) and
# ../shared/corpus-build/ptx-nvcc-13.5/build_dg.sh use them. These are kernels the shared corpus
# does not have (the MQA-logits kernels).
# Usage: deepgemm.sh DEEPGEMM_DIR CUTLASS_DIR OUT_DIR [NAME...]   (NAME: dg/NAME.cu)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
DG=$(cd "$1" && pwd); C=$(cd "$2" && pwd); mkdir -p "$3/logs"; OUT=$(cd "$3" && pwd); shift 3
if [ $# -gt 0 ]; then NAMES=("$@"); else NAMES=($(cd "$HERE/dg" && ls *.cu | sed 's/\.cu$//')); fi
for n in "${NAMES[@]}"; do
  case $n in sm90*) archs="sm_90a";; sm100*) archs="sm_100a";; esac
  for arch in $archs; do
    out="$OUT/$n.$arch.ptx"
    if [ -s "$out" ]; then echo "have $out"; continue; fi
    start=$(date +%s)
    ( ulimit -v "$ULIMIT_V"; timeout "${TIMEOUT:-1500}" $NICE nvcc -ptx -std=c++20 --diag-suppress=39,161,174,177,186,940 \
        -I"$DG/deep_gemm/include" -I"$C/include" --gpu-architecture=$arch \
        --compiler-options=-fPIC,-O3,-fconcepts,-Wno-deprecated-declarations,-Wno-abi -O3 \
        --expt-relaxed-constexpr --expt-extended-lambda "$HERE/dg/$n.cu" -o "$out.tmp" ) > "$OUT/logs/$n.$arch.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then mv "$out.tmp" "$out"; else rm -f "$out.tmp"; fi
    echo "rc=$rc $n $arch $(( $(date +%s) - start ))s $( [ -s "$out" ] && ptxas_verdict "$out")"
  done
done
