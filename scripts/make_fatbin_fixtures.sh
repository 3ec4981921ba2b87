#!/usr/bin/env bash
# Rebuilds tests/fixtures/fatbin/ from k.cu with the nvcc of PyPI's
# nvidia-cuda-nvcc 13.5.37 (CPU only; the host compiler is the system gcc).
# Every container holds PTX for compute_80 and compute_90; the fixtures'
# findings must equal those of k.compute_80.ptx and k.compute_90.ptx alone
# (tests/fatbin.rs).
set -euo pipefail
cd "$(dirname "$0")/../tests/fixtures/fatbin"
site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
nvcc=$(ls "$site"/nvidia/cu*/bin/nvcc | head -1)
"$nvcc" --version | tail -2
ptx="-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90"
both="-gencode arch=compute_80,code=[sm_80,compute_80] -gencode arch=compute_90,code=[sm_90,compute_90]"
# The PTX alone (the reference findings).
"$nvcc" -ptx -arch=compute_80 -o k.compute_80.ptx k.cu
"$nvcc" -ptx -arch=compute_90 -o k.compute_90.ptx k.cu
# Stand-alone fatbins: every --compress-mode, -Xfatbin -compress-all, --concat.
for mode in default size speed balance none; do
    "$nvcc" -fatbin $ptx --compress-mode=$mode -o k.$mode.fatbin k.cu
done
"$nvcc" -fatbin $ptx --no-compress -o k.no-compress.fatbin k.cu
"$nvcc" -fatbin $both -Xfatbin -compress-all -o k.compress-all.fatbin k.cu
"$nvcc" -fatbin $both -Xfatbin -compress-all --compress-mode=speed -o k.compress-all-speed.fatbin k.cu
"$nvcc" -fatbin $ptx --concat -o k.concat.fatbin k.cu
# SASS for two arches beside the PTX; a bare cubin.
"$nvcc" -fatbin $both -o k.sass.fatbin k.cu
"$nvcc" -cubin -arch=sm_90 -o k.sm_90.cubin k.cu
# ELF: an object (.nv_fatbin), a relocatable object (-rdc: __nv_relfatbin),
# a static archive of both, a shared library.
"$nvcc" -c $ptx -o k.o k.cu
"$nvcc" -c -rdc=true $ptx -o k.rdc.o k.cu
rm -f libk.a && ar rcs libk.a k.o k.rdc.o
"$nvcc" -shared -Xcompiler -fPIC -cudart none $ptx -o libk.so k.cu
ls -l
