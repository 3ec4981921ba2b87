# Source me: puts the PyPI CUDA 13.5 toolchain (nvidia-cuda-nvcc 13.5.37 & co., installed into
# $VENV) on PATH. VENV defaults to /work/venvs/realptx.
VENV=${VENV:-/work/venvs/realptx}
CU=$VENV/lib/python3.11/site-packages/nvidia/cu13
if [ ! -x "$CU/bin/nvcc" ]; then
  CU=$(echo "$VENV"/lib/python3*/site-packages/nvidia/cu13)
fi
export PATH="$CU/bin:$CU/nvvm/bin:$VENV/bin:$PATH"
export CUDA_HOME="$CU"
# One compile at a time, politely: the build machine is shared.
NICE=${NICE:-nice -n 15}
# Address-space cap for one nvcc run (KiB); a CUTLASS example can need several GB.
ULIMIT_V=${ULIMIT_V:-8000000}
# ptxas verdict for one module: prints "ok" or "REJECT: first error line".
ptxas_verdict() {
  local f=$1 arch
  arch=$(grep -m1 -oE '^\.target[[:space:]]+sm_[0-9]+[af]?' "$f" | awk '{print $2}')
  local log
  if log=$($NICE ptxas -arch="$arch" -o /dev/null "$f" 2>&1); then echo "ok $arch"; else
    echo "REJECT $arch: $(echo "$log" | grep -m1 -i error)"; fi
}
