#!/bin/bash
# Compile CUTLASS examples to PTX with nvcc 13.5 (no GPU needed), one translation unit at a time.
# Usage: cutlass.sh CUTLASS_DIR OUT_DIR [JOB...]
#   CUTLASS_DIR: a CUTLASS checkout (needs include/, tools/util/include/, examples/)
#   OUT_DIR:     where <example>.<arch>.ptx and logs/ go
#   JOB:         "examples/DIR/FILE.cu:ARCH" (default: the list below)
# Flags follow CUTLASS's CMake build of the examples (CUTLASS_NVCC_ARCHS=<arch>, Release).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
C=$(cd "$1" && pwd); mkdir -p "$2/logs"; OUT=$(cd "$2" && pwd); shift 2
JOBS=("$@")
if [ ${#JOBS[@]} -eq 0 ]; then
  JOBS=(
    examples/80_blackwell_geforce_sparse_gemm/80a_blackwell_geforce_mxfp8_bf16_sparse_gemm.cu:sm_120a
    examples/80_blackwell_geforce_sparse_gemm/80b_blackwell_geforce_nvfp4_nvfp4_sparse_gemm.cu:sm_120a
    examples/79_blackwell_geforce_gemm/79a_blackwell_geforce_nvfp4_bf16_gemm.cu:sm_120a
    examples/79_blackwell_geforce_gemm/79c_blackwell_geforce_mixed_mxfp8_mxfp6_bf16_gemm.cu:sm_120a
    examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu:sm_90a
    examples/54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu:sm_90a
    examples/62_hopper_sparse_gemm/62_hopper_sparse_gemm.cu:sm_90a
    examples/70_blackwell_gemm/70_blackwell_fp16_gemm.cu:sm_100a
    examples/70_blackwell_gemm/70_blackwell_fp8_gemm.cu:sm_100a
    examples/72_blackwell_narrow_precision_gemm/72a_blackwell_nvfp4_bf16_gemm.cu:sm_100a
    examples/84_blackwell_narrow_precision_sparse_gemm/84b_blackwell_mixed_mxfp8_bf16_sparse_gemm.cu:sm_100a
    examples/88_hopper_fmha/88_hopper_fmha.cu:sm_90a
    examples/77_blackwell_fmha/77_blackwell_fmha.cu:sm_100a
  )
fi
for job in "${JOBS[@]}"; do
  src=${job%:*}; arch=${job##*:}
  name=$(basename "$src" .cu)
  dir=$(dirname "$C/$src")
  out="$OUT/$name.$arch.ptx"
  if [ -s "$out" ]; then echo "have $out"; continue; fi
  start=$(date +%s)
  ( ulimit -v "$ULIMIT_V"; cd "$dir" && timeout "${TIMEOUT:-1500}" $NICE nvcc -ptx -arch="$arch" -std=c++17 -O3 -DNDEBUG \
      --expt-relaxed-constexpr -DCUTLASS_ENABLE_TENSOR_CORE_MMA=1 -DCUTLASS_DEBUG_TRACE_LEVEL=0 \
      -Xcompiler=-Wno-psabi -diag-suppress 177,550 \
      -I"$C/include" -I"$C/tools/util/include" -I"$C/examples/common" -I"$dir" \
      "$C/$src" -o "$out.tmp" ) > "$OUT/logs/$name.$arch.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then mv "$out.tmp" "$out"; else rm -f "$out.tmp"; fi
  echo "rc=$rc $name $arch $(( $(date +%s) - start ))s $( [ -s "$out" ] && ptxas_verdict "$out")"
done
