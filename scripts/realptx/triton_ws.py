# Generate PTX from Triton 3.6 warp-specialized kernels (tl.range(..., warp_specialize=True)) without a GPU.
# Usage: python triton_ws.py OUT_DIR
# The kernels follow the shape of Triton's tutorials 09-persistent-matmul (TMA-descriptor persistent
# matmul, warp-specialized K loop) and 06-fused-attention (warp-specialized KV loop); they are written
# here, not copied. Each (kernel, config, arch) gives OUT_DIR/<name>.sm<arch>.ptx.
import inspect
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def persistent_mm_ws(a_ptr, b_ptr, c_ptr, M, N, K,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr, OUT_F32: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid0 = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    n_tiles = tiles_m * tiles_n
    in_group = GROUP_M * tiles_n
    for tile in tl.range(pid0, n_tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=True):
        g = tile // in_group
        first_m = g * GROUP_M
        gsize = min(tiles_m - first_m, GROUP_M)
        pm = first_m + (tile % gsize)
        pn = (tile % in_group) // gsize
        om = pm * BM
        on = pn * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_tiles):
            x = a_desc.load([om, kk * BK])
            y = b_desc.load([on, kk * BK])
            acc = tl.dot(x, y.T, acc)
        if OUT_F32:
            c_desc.store([om, on], acc)
        else:
            c_desc.store([om, on], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def mm_ws_loop(a_ptr, b_ptr, c_ptr, M, N, K,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    # Non-persistent: one tile per program, the K loop warp-specialized.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=True):
        x = a_desc.load([pm * BM, kk * BK])
        y = b_desc.load([pn * BN, kk * BK])
        acc = tl.dot(x, y.T, acc)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def attn_fwd_ws(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, Z, H, N_CTX,
                HEAD_DIM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    rows = Z * H * N_CTX
    qd = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BM, HEAD_DIM])
    kd = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BN, HEAD_DIM])
    vd = tl.make_tensor_descriptor(v_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BN, HEAD_DIM])
    od = tl.make_tensor_descriptor(o_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BM, HEAD_DIM])
    base = off_hz * N_CTX
    qo = base + start_m * BM
    offs_m = start_m * BM + tl.arange(0, BM)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = qd.load([qo, 0])
    hi = (start_m + 1) * BM if CAUSAL else N_CTX
    for start_n in tl.range(0, hi, BN, warp_specialize=True):
        k = kd.load([base + start_n, 0])
        qk = tl.dot(q, k.T)
        if CAUSAL:
            offs_n = start_n + tl.arange(0, BN)
            qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = vd.load([base + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    od.store([qo, 0], acc.to(o_ptr.dtype.element_ty))


@triton.jit
def scaled_mm_ws(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FMT: tl.constexpr, PACK: tl.constexpr,
                 VEC: tl.constexpr):
    # Block-scaled matmul (tl.dot_scaled) with a warp-specialized K loop; A (M, K/PACK) and B (N, K/PACK)
    # K-major through TMA descriptors, one scale per VEC elements of K.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K // PACK], strides=[K // PACK, 1], block_shape=[BM, BK // PACK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K // PACK], strides=[K // PACK, 1], block_shape=[BN, BK // PACK])
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rs = tl.arange(0, BK // VEC)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        x = a_desc.load([pm * BM, kk * (BK // PACK)])
        y = b_desc.load([pn * BN, kk * (BK // PACK)])
        xs = tl.load(sa_ptr + rm[:, None] * (K // VEC) + (kk * (BK // VEC) + rs)[None, :])
        ys = tl.load(sb_ptr + rn[:, None] * (K // VEC) + (kk * (BK // VEC) + rs)[None, :])
        acc = tl.dot_scaled(x, xs, FMT, y.T, ys, FMT, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


def sig(fn, types, consts):
    return {n: ("constexpr" if n in consts else types[n]) for n in inspect.signature(fn.fn).parameters}


def jobs():
    j = []
    mmi = dict(M="i32", N="i32", K="i32")
    for dt, tag, out in [("fp16", "f16", "fp16"), ("bf16", "bf16", "bf16"), ("fp8e4nv", "e4m3", "fp16")]:
        t = dict(mmi, a_ptr="*" + dt, b_ptr="*" + dt, c_ptr="*" + out)
        for bm, bn, bk in [(128, 128, 64), (128, 256, 64)]:
            if dt == "fp8e4nv":
                bk = 128
            # flatten=False fails in Triton 3.6 (NVWSInsertAref pass) for the persistent loop; the
            # tutorial uses flatten=True on Blackwell as well.
            for flat in (True,):
                j.append((f"persistent_mm_ws_{tag}_{bm}x{bn}x{bk}{'_flat' if flat else ''}", persistent_mm_ws, t,
                          dict(BM=bm, BN=bn, BK=bk, GROUP_M=8, NUM_SMS=148, FLATTEN=flat, OUT_F32=False), 4, 3))
        bk = 64 if dt != "fp8e4nv" else 128
        j.append((f"mm_ws_loop_{tag}_128x128x{bk}", mm_ws_loop, t, dict(BM=128, BN=128, BK=bk, STAGES=3), 4, 3))
    for fmt, pack, adt in [("e4m3", 1, "*fp8e4nv"), ("e2m1", 2, "*u8")]:
        t = dict(a_ptr=adt, b_ptr=adt, sa_ptr="*u8", sb_ptr="*u8", c_ptr="*fp16", M="i32", N="i32", K="i32")
        j.append((f"scaled_mm_ws_{fmt}_128x128x128", scaled_mm_ws, t,
                  dict(BM=128, BN=128, BK=128, FMT=fmt, PACK=pack, VEC=32), 4, 3))
    for dt, tag in [("fp16", "f16"), ("bf16", "bf16")]:
        t = dict(q_ptr="*" + dt, k_ptr="*" + dt, v_ptr="*" + dt, o_ptr="*" + dt, sm_scale="fp32", Z="i32", H="i32", N_CTX="i32")
        for hd in (64, 128):
            for causal in (False, True):
                j.append((f"attn_fwd_ws_{tag}_d{hd}{'_causal' if causal else ''}", attn_fwd_ws, t,
                          dict(HEAD_DIM=hd, BM=128, BN=128 if hd == 64 else 64, CAUSAL=causal), 4, 2))
    return j


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "ptx-out"
    archs = [int(a) for a in os.environ.get("ARCHS", "100,90").split(",")]
    os.makedirs(out, exist_ok=True)
    print("triton", triton.__version__)
    ok = fail = 0
    for arch in archs:
        for name, fn, types, consts, warps, stages in jobs():
            path = f"{out}/{name}.sm{arch}.ptx"
            if os.path.exists(path):
                continue
            try:
                src = ASTSource(fn=fn, signature=sig(fn, types, consts), constexprs=consts)
                k = triton.compile(src, target=GPUTarget("cuda", arch, 32),
                                   options=dict(num_warps=warps, num_stages=stages))
                with open(path, "w") as f:
                    f.write(k.asm["ptx"])
                ok += 1
                print("ok", name, arch, flush=True)
            except Exception as e:  # report and go on
                fail += 1
                msg = str(e).splitlines()[0][:300] if str(e) else ""
                print(f"FAIL sm{arch} {name}: {type(e).__name__}: {msg}", flush=True)
    print("ok", ok, "fail", fail)


if __name__ == "__main__":
    main()
