# Compile CuTe DSL example kernels (CUTLASS examples/python/CuTeDSL) to PTX without a GPU.
# Usage: CUTE_DSL_ARCH=sm_100a python cutedsl.py CUTLASS_DIR OUT_DIR [JOB...]
# Each job imports one example file by path, builds its kernel object and calls cute.compile on fake
# tensors (cute.runtime.make_fake_compact_tensor) and a fake stream, so nothing is launched and no
# torch or driver is needed. CUTE_DSL_KEEP=ptx makes the DSL write the PTX into CUTE_DSL_DUMP_DIR;
# this script sets both, then moves the .ptx to OUT_DIR/<job>.<arch>.ptx.
import glob
import math
import importlib.util
import os
import shutil
import sys
import traceback
import types

CUTLASS = os.path.abspath(sys.argv[1])
OUT = os.path.abspath(sys.argv[2])
ARCH = os.environ.get("CUTE_DSL_ARCH", "sm_100a")
EX = os.path.join(CUTLASS, "examples/python/CuTeDSL/cute")
TMP = os.path.join(OUT, "dump-" + ARCH)
os.makedirs(TMP, exist_ok=True)
os.environ["CUTE_DSL_KEEP"] = "ptx"
os.environ["CUTE_DSL_DUMP_DIR"] = TMP

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream  # noqa: E402


class _Stub(types.ModuleType):
    """Stands in for torch in examples that import it only for their host-side test harness."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self.__name__}.{name}")

    def __call__(self, *a, **k):
        return _Stub(self.__name__ + "()")


def load(rel, stub_torch=False):
    if stub_torch and "torch" not in sys.modules:
        for name in ("torch", "torch.nn", "torch.nn.functional", "torch.cuda"):
            sys.modules[name] = _Stub(name)
    path = os.path.join(EX, rel)
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def mat(dtype, rows, cols, l, major_rows):
    # CuTe's (rows, cols, l) with the contiguous mode first (major_rows) or second.
    order = (0, 1, 2) if major_rows else (1, 0, 2)
    return make_fake_compact_tensor(dtype, (rows, cols, l), stride_order=order, assumed_align=16)


def gemm_tensors(ab, c, m=4096, n=4096, k=4096, l=1):
    # K-major A (m,k,l) and B (n,k,l), N-major C (m,n,l).
    return mat(ab, m, k, l, False), mat(ab, n, k, l, False), mat(c, m, n, l, False)


def hopper_persistent(tile=(128, 128), cluster=(1, 1), ab=cutlass.Float16, c=cutlass.Float16):
    mod = load("hopper/kernel/dense_gemm/dense_gemm_persistent.py")
    g = mod.HopperWgmmaGemmPersistentKernel(cutlass.Float32, tile, cluster, 1, True)
    a, b, cc = gemm_tensors(ab, c)
    return cute.compile(g, a, b, cc, 132, make_fake_stream())


def hopper_dense(tile=(128, 128), cluster=(1, 1), ab=cutlass.Float16, c=cutlass.Float16):
    mod = load("hopper/kernel/dense_gemm/dense_gemm.py")
    g = mod.HopperWgmmaGemmKernel(cutlass.Float32, tile, cluster)
    a, b, cc = gemm_tensors(ab, c)
    return cute.compile(g, a, b, cc, make_fake_stream())


def bw_persistent(tile=(256, 128), cluster=(2, 1), two_cta=True, ab=cutlass.Float16, c=cutlass.Float16):
    mod = load("blackwell/kernel/dense_gemm/dense_gemm_persistent.py")
    g = mod.PersistentDenseGemmKernel(cutlass.Float32, two_cta, tile, cluster, True)
    a, b, cc = gemm_tensors(ab, c)
    return cute.compile(g, a, b, cc, 148, make_fake_stream(), lambda x: x)


def bw_dense(tile=(128, 128), cluster=(1, 1), ab=cutlass.Float16, c=cutlass.Float16):
    mod = load("blackwell/kernel/dense_gemm/dense_gemm.py")
    g = mod.DenseGemmKernel(cutlass.Float32, False, tile, cluster, True)
    a, b, cc = gemm_tensors(ab, c)
    return cute.compile(g, a, b, cc, make_fake_stream())


def sm120_dense(tile=(128, 128, 64), ab=cutlass.Float16, c=cutlass.Float16):
    mod = load("blackwell_geforce/kernel/dense_gemm/dense_gemm.py")
    g = mod.Sm120GemmKernel(cutlass.Float32, tile)
    a, b, cc = gemm_tensors(ab, c)
    return cute.compile(g, a, b, cc, 188, make_fake_stream())


def bw_blockscaled(ab, sf, sf_vec, tile=(256, 128), cluster=(2, 1)):
    mod = load("blackwell/kernel/blockscaled_gemm/dense_blockscaled_gemm_persistent.py", stub_torch=True)
    g = mod.Sm100BlockScaledPersistentDenseGemmKernel(sf_vec, tile, cluster)
    return mod.scaled_mm(g, ab, ab, cutlass.Float16, sf, "k", "k", "n", 148, make_fake_stream())


def sm120_blockscaled(ab, sf, sf_vec, kind="pingpong", tile=(128, 128, 128)):
    mod = load(f"blackwell_geforce/kernel/blockscaled_gemm/dense_blockscaled_gemm_persistent_{kind}.py")
    g = mod.Sm120BlockScaledGemmKernel(cutlass.Float32, sf_vec, tile, (128, 128))
    m = n = k = 1024
    a, b, c = gemm_tensors(ab, cutlass.Float16, m, n, k)
    # The kernel rebuilds the scale-factor layouts from the pointers (tile_atom_to_shape_SF).
    sfa = make_fake_compact_tensor(sf, (m * k // sf_vec,), assumed_align=16)
    sfb = make_fake_compact_tensor(sf, (n * k // sf_vec,), assumed_align=16)
    return cute.compile(g, a, b, sfa, sfb, c, 188, make_fake_stream())


def sm103_blockscaled(tile=(128, 128), cluster=(1, 1), sf=cutlass.Float8E8M0FNU, sf_vec=16):
    mod = load("blackwell/kernel/blockscaled_gemm/sm103_dense_blockscaled_gemm_persistent.py", stub_torch=True)
    g = mod.Sm103BlockScaledPersistentDenseGemmKernel(sf_vec, tile, cluster, True)
    m = n = k = 4096
    a, b, c = gemm_tensors(cutlass.Float4E2M1FN, cutlass.Float16, m, n, k)
    # The kernel rebuilds the scale-factor layouts from the pointers (tile_atom_to_shape_SF).
    sfa = make_fake_compact_tensor(sf, (m * k // sf_vec,), assumed_align=16)
    sfb = make_fake_compact_tensor(sf, (n * k // sf_vec,), assumed_align=16)
    return cute.compile(g, a, b, sfa, sfb, c, 148, make_fake_stream())


def hopper_fmha(d=128, causal=False, dt=cutlass.Float16):
    sys.path.insert(0, os.path.join(CUTLASS, "examples/python/CuTeDSL"))
    mod = load("hopper/kernel/attention/fmha.py", stub_torch=True)
    b, s, hk, hr = 4, 1024, 8, 1
    f = mod.HopperFusedMultiHeadAttentionForward(
        cutlass.Float32, cutlass.Float32, (64, 128, d), False, mod.fmha_utils.MaskEnum.WINDOW_MASK)
    # (s, d, h_r, h_k, b) views of row-major (b, s, h_k, h_r, d) storage, as the example permutes them
    order = (3, 0, 1, 2, 4)
    q = make_fake_compact_tensor(dt, (s, d, hr, hk, b), stride_order=order, assumed_align=16)
    k = make_fake_compact_tensor(dt, (s, d, 1, hk, b), stride_order=order, assumed_align=16)
    v = make_fake_compact_tensor(dt, (s, d, 1, hk, b), stride_order=order, assumed_align=16)
    o = make_fake_compact_tensor(dt, (s, d, hr, hk, b), stride_order=order, assumed_align=16)
    lse = make_fake_compact_tensor(cutlass.Float32, (s, 1, hr, hk, b), stride_order=order, assumed_align=16)
    sc = 1.0 / math.sqrt(d)
    from cutlass.cute.typing import Float32, Int32
    wr = Int32(0) if causal else None
    return cute.compile(f, q, k, v, o, lse, Float32(sc * math.log2(math.e)), Float32(sc), Float32(1.0),
                        None, wr, make_fake_stream())


def bw_fmha(d=128, causal=False, persistent=True, dt=cutlass.Float16):
    sys.path.insert(0, os.path.join(CUTLASS, "examples/python/CuTeDSL"))
    mod = load("blackwell/kernel/attention/fmha/fmha.py", stub_torch=True)
    from cutlass.cute.typing import Float32, Int32
    b, s, hk, hr = 4, 1024, 8, 1
    mask = mod.fmha_utils.MaskEnum.WINDOW_MASK
    f = mod.BlackwellFusedMultiHeadAttentionForward(
        cutlass.Float32, cutlass.Float32, (128, 128), d, persistent, mask, False, False, use_tma_store=True)
    order = (4, 3, 2, 1, 0)  # row-major (b, s, h_k, h_r, d)
    q = make_fake_compact_tensor(dt, (b, s, hk, hr, d), stride_order=order, assumed_align=32)
    k = make_fake_compact_tensor(dt, (b, s, hk, 1, d), stride_order=order, assumed_align=32)
    v = make_fake_compact_tensor(dt, (b, s, hk, 1, d), stride_order=order, assumed_align=32)
    o = make_fake_compact_tensor(dt, (b, s, hk, hr, d), stride_order=order, assumed_align=32)
    ps = tuple(Int32(x) for x in (b, s, s, s, hk * hr, hk, d, d))
    sc = 1.0 / math.sqrt(d)
    wr = Int32(0) if causal else None
    return cute.compile(f, q, k, v, o, ps, None, None, None, None, Float32(sc * math.log2(math.e)), Float32(sc),
                        Float32(1.0), None, None, wr, None, None, make_fake_stream(), False)


JOBS = {
    "sm_90a": {
        "hopper_dense_gemm_persistent_f16_128x128": lambda: hopper_persistent(),
        "hopper_dense_gemm_persistent_f16_128x256_c2x1": lambda: hopper_persistent((128, 256), (2, 1)),
        "hopper_dense_gemm_persistent_e4m3_128x128": lambda: hopper_persistent(ab=cutlass.Float8E4M3FN),
        "hopper_dense_gemm_f16_128x128": lambda: hopper_dense(),
        "hopper_fmha_fwd_f16_d128": lambda: hopper_fmha(),
        "hopper_fmha_fwd_bf16_d64_causal": lambda: hopper_fmha(64, True, cutlass.BFloat16),
    },
    "sm_100a": {
        "bw_dense_gemm_persistent_f16_256x128_2cta": lambda: bw_persistent(),
        "bw_dense_gemm_persistent_f16_128x128_1cta": lambda: bw_persistent((128, 128), (1, 1), False),
        "bw_dense_gemm_persistent_e4m3_256x256_2cta": lambda: bw_persistent((256, 256), (2, 1), True, cutlass.Float8E4M3FN),
        "bw_dense_gemm_f16_128x128": lambda: bw_dense(),
        "bw_blockscaled_gemm_nvf4_256x128_2cta": lambda: bw_blockscaled(cutlass.Float4E2M1FN, cutlass.Float8E4M3FN, 16),
        "bw_blockscaled_gemm_mxf8_128x128_1cta": lambda: bw_blockscaled(
            cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU, 32, (128, 128), (1, 1)),
        # persistent=True asks the driver for the SM count (fails without one)
        "bw_fmha_fwd_f16_d128": lambda: bw_fmha(128, False, False),
        "bw_fmha_fwd_bf16_d64_causal": lambda: bw_fmha(64, True, False, cutlass.BFloat16),
    },
    "sm_103a": {
        "sm103_blockscaled_gemm_nvf4_128x128": lambda: sm103_blockscaled(),
        "sm103_blockscaled_gemm_nvf4_256x256_2cta": lambda: sm103_blockscaled((256, 256), (2, 1)),
    },
    "sm_120a": {
        "sm120_dense_gemm_f16_128x128x64": lambda: sm120_dense(),
        "sm120_blockscaled_gemm_nvf4_pingpong": lambda: sm120_blockscaled(cutlass.Float4E2M1FN, cutlass.Float8E4M3FN, 16),
        "sm120_blockscaled_gemm_mxf8_cooperative": lambda: sm120_blockscaled(
            cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU, 32, "cooperative"),
    },
}


def main():
    jobs = JOBS.get(ARCH, {})
    want = sys.argv[3:]
    ok = fail = 0
    for name, fn in jobs.items():
        if want and name not in want:
            continue
        dest = os.path.join(OUT, f"{name}.{ARCH}.ptx")
        if os.path.exists(dest):
            continue
        for f in glob.glob(os.path.join(TMP, "*")):
            os.remove(f) if os.path.isfile(f) else shutil.rmtree(f)
        try:
            fn()
            ptx = sorted(glob.glob(os.path.join(TMP, "**", "*.ptx"), recursive=True), key=os.path.getsize)
            if not ptx:
                raise RuntimeError("compiled, but no .ptx in " + TMP)
            shutil.move(ptx[-1], dest)
            ok += 1
            print("ok", name, ARCH, os.path.getsize(dest), flush=True)
        except Exception as e:  # report and go on
            fail += 1
            print(f"FAIL {ARCH} {name}: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}", flush=True)
            traceback.print_exc(limit=3)
    print("ok", ok, "fail", fail)


if __name__ == "__main__":
    main()
