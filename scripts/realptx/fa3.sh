#!/bin/bash
# Compile FlashAttention-3 (hopper/) instantiations to PTX with nvcc 13.5 (no GPU needed).
# Usage: fa3.sh FA_DIR CUTLASS_DIR OUT_DIR [INSTANTIATION...]
#   FA_DIR:      a flash-attention checkout (needs hopper/)
#   CUTLASS_DIR: the CUTLASS that flash-attention pins as csrc/cutlass (include/ is enough)
#   INSTANTIATION: a file name under hopper/instantiations/ or hopper/ (default: the list below)
# Flags are hopper/setup.py's nvcc_flags for the sm90 files (-gencode arch=compute_90a,code=sm_90a) plus
# the flags torch's CUDAExtension adds (COMMON_NVCC_FLAGS: the __CUDA_NO_* defines, --expt-relaxed-constexpr).
# FA3_DISABLE (default below) adds FA3's own feature switches (setup.py's FLASH_ATTENTION_DISABLE_*
# -> -DFLASHATTENTION_DISABLE_*) so one instantiation compiles a handful of kernels, not dozens;
# FA3_DISABLE= builds the full instantiation.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
FA=$(cd "$1" && pwd); C=$(cd "$2" && pwd); mkdir -p "$3/logs"; OUT=$(cd "$3" && pwd); shift 3
FILES=("$@")
if [ ${#FILES[@]} -eq 0 ]; then
  FILES=(
    flash_prepare_scheduler.cu
    flash_fwd_combine.cu
    flash_fwd_hdim64_bf16_sm90.cu
    flash_fwd_hdim128_bf16_sm90.cu
    flash_fwd_hdim128_e4m3_sm90.cu
    flash_fwd_hdim128_bf16_paged_split_sm90.cu
    flash_bwd_hdim128_bf16_sm90.cu
  )
fi
FA3_DISABLE=${FA3_DISABLE-"LOCAL SOFTCAP PACKGQA VARLEN APPENDKV CLUSTER"}
DEFS=""; for x in $FA3_DISABLE; do DEFS="$DEFS -DFLASHATTENTION_DISABLE_$x"; done
for f in "${FILES[@]}"; do
  src="$FA/hopper/instantiations/$f"; [ -f "$src" ] || src="$FA/hopper/$f"
  name=$(basename "$f" .cu)
  out="$OUT/$name.sm_90a.ptx"
  if [ -s "$out" ]; then echo "have $out"; continue; fi
  start=$(date +%s)
  ( ulimit -v "$ULIMIT_V"; cd "$FA/hopper" && timeout "${TIMEOUT:-1500}" $NICE nvcc -ptx -arch=sm_90a -O3 -std=c++17 \
      --use_fast_math -lineinfo -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DCUTLASS_ENABLE_GDC_FOR_SM90 \
      -DCUTLASS_DEBUG_TRACE_LEVEL=0 -DNDEBUG --expt-relaxed-constexpr --expt-extended-lambda \
      -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ \
      $DEFS -Xcompiler=-Wno-psabi -I"$FA/hopper" -I"$C/include" -I"$C/tools/util/include" \
      "$src" -o "$out.tmp" ) > "$OUT/logs/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then mv "$out.tmp" "$out"; else rm -f "$out.tmp"; fi
  echo "rc=$rc $name sm_90a $(( $(date +%s) - start ))s $( [ -s "$out" ] && ptxas_verdict "$out")"
done
