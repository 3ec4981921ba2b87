#!/usr/bin/env python3
"""Oracle: irlint's PTX atom rules against ptxas (reference/ptx-atoms.md §4).

Generates the tcgen05.mma, ldmatrix/stmatrix and cp.async.bulk.tensor variant
spaces, one variant per `.entry` (at most 400 per file), assembles each file
with ptxas for every target, maps ptxas errors back to variants by line (a
rejected variant is removed and the file re-assembled until it passes, so an
error masked by an earlier one elsewhere is not missed), runs `irlint check`
on the same files and prints the agreement table by family and target.

    scripts/ptx_oracle.py [--ptxas PATH] [--irlint target/release/irlint] [--families tcgen05,ldst,tma]

Categories: `both accept`; `both reject`; `flagged, ptxas accepts` (a false
positive unless it is the one documented class, `.kind::i8` with a trailing
scale-input-d immediate); `missed` (ptxas rejects, irlint silent), split into
`missed (kind-word reason)` when ptxas's message is the wording of a kind-word rule.
"""
import argparse
import glob
import itertools
import json
import os
import re
import site
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

SEED_REASON = re.compile(
    r"Feature '\.kind::i8' not supported|with \.sp modifier' not supported|Feature '\.scale_vec::\dX' not supported"
    r"|argument scale-inp-d-imm|cannot be combined with modifier '\.block_scale'"
    r"|Illegal modifier '\.ashift'|Illegal modifier '\.cta_group::2' for instruction 'tcgen05\.mma\.ws'"
    r"|Illegal modifier '\.kind::\w+' for instruction 'tcgen05\.mma\.ws'"
    r"|'\.collector::a::(fill|use)' cannot be combined with modifier '\.ashift'"
    r"|'\.kind::mxf\w*' cannot be combined with modifier '\.(scale_vec::\dX|block16|block32)'"
    r"|'\.kind::mxf4nvf4' requires modifier '\.scale_vectorsize'"
    r"|Vector of size \d+ is expected|require for instruction ldmatrix|Illegal matrix shape"
    r"|cannot be combined with modifier '\.(tile::gather4|tile::scatter4|im2col\S*)'"
)

TARGETS = {
    "tcgen05": ["sm_100a", "sm_100f", "sm_103a", "sm_110a", "sm_120a"],
    "ldst": ["sm_90a", "sm_100a", "sm_100f", "sm_120a", "sm_120"],
    "tma": ["sm_80", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120a"],
    "mma": ["sm_120a", "sm_120f", "sm_100a", "sm_120"],
    "wgmma": ["sm_90a", "sm_90", "sm_100a", "sm_120a"],
    "order": ["sm_90a", "sm_100a", "sm_120a"],
}
KINDS = ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"]
SCALE = ["", ".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32"]


def tcgen05_variants():
    for ws, sp, cta, kind, bs, sv, coll, ashift, sid in itertools.product(
        [False, True], [False, True], [1, 2], KINDS, [False, True], SCALE,
        ["", ".collector::a::fill", ".collector::a::use", ".collector::a::lastuse", ".collector::b0::fill"],
        [False, True], [False, True],
    ):
        # Prune to grammar-near forms (the space §4.1 describes).
        if ws and (ashift or sid or bs):
            continue
        if coll.startswith(".collector::b0") and not ws:
            continue
        if sv and not bs and kind not in ("f16", "mxf4"):
            continue
        if bs and (ashift or sid):
            continue
        if ashift and coll == ".collector::a::lastuse":
            continue
        word = "tcgen05.mma" + (".ws" if ws else "") + (".sp" if sp else "")
        word += f".cta_group::{cta}.kind::{kind}" + (".block_scale" if bs else "") + sv
        word += (".ashift" if ashift else "") + coll
        a = "[%r5]" if ashift else "%rd2"
        ops = ["[%r1]", a, "%rd3"] + (["[%r6]"] if sp else []) + ["%r2"]
        if bs:
            ops += ["[%r4]", "[%r7]"]
        ops += ["%p1"] + (["3"] if sid else [])
        yield f"{word} {', '.join(ops)};"
    # The operand list of the block-scaled forms: [scale-A], [scale-B] and nothing else.
    for sp, cta, (kind, sv) in itertools.product(
        [False, True], [1, 2], [("mxf8f6f4", ""), ("mxf4", ".block32"), ("mxf4nvf4", ".scale_vec::2X")]
    ):
        word = "tcgen05.mma" + (".sp" if sp else "") + f".cta_group::{cta}.kind::{kind}.block_scale{sv}"
        head = ["[%r1]", "%rd2", "%rd3"] + (["[%r6]"] if sp else []) + ["%r2"]
        lane = "{" + ", ".join(f"%r{10 + i}" for i in range(4 * cta)) + "}"
        for tail in (["%p1"], ["[%r4]", "%p1"], ["%r4", "%r7", "%p1"], ["[%r4]", "[%r7]", lane, "%p1"],
                     ["[%r4]", "[%r7]", "%p1", "3"], ["[%r4]", "[%r7]", "[%r8]", "%p1"]):
            yield f"{word} {', '.join(head + tail)};"
    for sp in (False, True):
        head = ["[%r1]", "%rd2", "%rd3"] + (["[%r6]"] if sp else []) + ["%r2"]
        word = "tcgen05.mma" + (".sp" if sp else "") + ".cta_group::1.kind::f16"
        yield f"{word} {', '.join(head + ['[%r4]', '[%r7]', '%p1'])};"
        # disable-output-lane: 4 registers for cta_group::1, 8 for ::2.
        for cta, n in itertools.product([1, 2], [4, 8]):
            lane = "{" + ", ".join(f"%r{10 + i}" for i in range(n)) + "}"
            word = "tcgen05.mma" + (".sp" if sp else "") + f".cta_group::{cta}.kind::f16"
            yield f"{word} {', '.join(head + [lane, '%p1'])};"


def ldst_variants():
    fmts = ["b16", "b8", "b8x16.b4x16_p64", "b8x16.b6x16_p32"]
    for st, shape, num, trans, fmt, ss, right in itertools.product(
        [False, True], ["m8n8", "m8n16", "m16n16", "m16n8"], [1, 2, 4], [False, True], fmts,
        ["", ".shared", ".shared::cta"], [True, False],
    ):
        per = 2 if (not st and shape == "m16n16") else 1
        n = num * per if right else num * per + 1
        regs = "{" + ", ".join(f"%r{10 + i}" for i in range(n)) + "}"
        word = ("stmatrix" if st else "ldmatrix") + f".sync.aligned.{shape}.x{num}" + (".trans" if trans else "")
        word += f"{ss}.{fmt}"
        yield f"{word} [%r1], {regs};" if st else f"{word} {regs}, [%r1];"


def tma_form(d, rank, mode, coords=None, offsets=None):
    """One tensor copy: d is cta/cluster (loads), s2g (store), prefetch or reduce."""
    n = coords if coords is not None else (5 if mode in (".tile::gather4", ".tile::scatter4") else rank)
    c = "{" + ", ".join(f"%r{10 + i}" for i in range(n)) + "}"
    if offsets is None:
        offsets = rank - 2 if mode == ".im2col" else 2 if mode.startswith(".im2col::w") else 0
    info = (", {" + ", ".join(f"%rs{i + 1}" for i in range(offsets)) + "}") if offsets else ""
    if d == "s2g":
        return f"cp.async.bulk.tensor.{rank}d.global.shared::cta{mode}.bulk_group [%rd1, {c}], [%r2];"
    if d == "reduce":
        return f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.add{mode}.bulk_group [%rd1, {c}], [%r2];"
    if d == "prefetch":
        return f"cp.async.bulk.prefetch.tensor.{rank}d.L2.global{mode} [%rd1, {c}]{info};"
    return (f"cp.async.bulk.tensor.{rank}d.shared::{d}.global{mode}.mbarrier::complete_tx::bytes "
            f"[%r2], [%rd1, {c}], [%r3]{info};")


def tma_variants():
    """Directions x rank 1-5 x load modes with the right operand lists, then for each
    rank and mode the coordinate count one off and the im2col offsets missing, one
    short and one over; prefetch and reduce forms."""
    modes = ["", ".tile", ".im2col", ".im2col::w", ".im2col::w::128", ".tile::gather4", ".tile::scatter4",
             ".im2col_no_offs"]
    for d, rank, mode in itertools.product(["cta", "cluster", "s2g"], range(1, 6), modes):
        yield tma_form(d, rank, mode)
    for rank, mode in itertools.product(range(1, 6), ["", ".im2col", ".im2col::w", ".tile::gather4"]):
        good = 5 if "gather4" in mode else rank
        if good > 1:
            yield tma_form("cta", rank, mode, coords=good - 1)
        yield tma_form("cta", rank, mode, coords=good + 1)
        yield tma_form("s2g", rank, "", coords=rank + 1)
        if mode.startswith(".im2col"):
            right = rank - 2 if mode == ".im2col" else 2
            for off in (0, right - 1, right + 1):
                if off >= 0 and off != right:
                    yield tma_form("cta", rank, mode, offsets=off)
        else:
            yield tma_form("cta", rank, mode, offsets=1)
    for rank, mode in itertools.product(range(1, 6), ["", ".im2col", ".im2col::w"]):
        yield tma_form("prefetch", rank, mode)
        yield tma_form("prefetch", rank, mode, coords=rank + 1)
        if mode == ".im2col":
            yield tma_form("prefetch", rank, mode, offsets=0)
    for rank, mode in itertools.product(range(1, 6), ["", ".im2col_no_offs"]):
        yield tma_form("reduce", rank, mode)
        if rank > 1:
            yield tma_form("reduce", rank, mode, coords=rank - 1)


def mma_variants():
    """Block-scaled mma.sync, dense and sparse (.sp::ordered_metadata), each in the PTX ISA's
    modifier order and in CUTLASS's (`mma.sync.aligned.kind::K.sp::ordered_metadata.block_scale
    .scale_vec::NX.m16n8kK.row.col…`), K 32/64/128 x 3 kinds x 6 scale-vector spellings x 4 type
    pairs x 2 scale types."""
    pairs = [("e4m3", "e4m3"), ("e3m2", "e2m3"), ("e2m1", "e2m1"), ("e2m1", "e4m3")]
    svs = ["", ".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32"]
    for sparse, cutlass, k, kind, sv, (ta, tb), st in itertools.product(
        [False, True], [False, True], [32, 64, 128], ["mxf8f6f4", "mxf4", "mxf4nvf4"], svs, pairs,
        ["ue8m0", "ue4m3"],
    ):
        types = f".f32.{ta}.{tb}.f32.{st}"
        if cutlass:
            sp = ".sp::ordered_metadata" if sparse else ""
            word = f"mma.sync.aligned.kind::{kind}{sp}.block_scale{sv}.m16n8k{k}.row.col{types}"
        else:
            sp = ".sp::ordered_metadata" if sparse else ""
            word = f"mma{sp}.sync.aligned.m16n8k{k}.row.col.kind::{kind}.block_scale{sv}{types}"
        b = "{%r5, %r6, %r9, %r10}" if sparse else "{%r5, %r6}"
        meta = ", %r11, 0x0" if sparse else ""
        yield (f"{word} {{%f1, %f2, %f3, %f4}}, {{%r1, %r2, %r3, %r4}}, {b}, {{%f5, %f6, %f7, %f8}}{meta}, "
               f"%r7, {{%rs1, %rs2}}, %r8, {{%rs1, %rs2}};")


WGMMA_TYPES = [
    # (dtype, atype, btype, K of the dense form)
    ("f16", "f16", "f16", 16), ("f32", "f16", "f16", 16), ("f32", "bf16", "bf16", 16),
    ("f16", "bf16", "bf16", 16), ("f32", "f16", "bf16", 16), ("f32", "tf32", "tf32", 8),
    ("f16", "tf32", "tf32", 8), ("f32", "e4m3", "e4m3", 32), ("f16", "e5m2", "e4m3", 32),
    ("f32", "e4m3", "e5m2", 32), ("s32", "s8", "s8", 32), ("s32", "u8", "s8", 32), ("s32", "s8", "u8", 32),
    ("s32", "b1", "b1", 256), ("f32", "s8", "s8", 32), ("s32", "f16", "f16", 16),
]


def wgmma_regs(n, dtype, extra=0):
    count = max(n // (4 if dtype == "f16" else 2), 1) + extra
    reg = "%f" if dtype == "f32" else "%r"
    return "{" + ", ".join(f"{reg}{10 + i}" for i in range(count)) + "}"


def wgmma_form(m, n, k, dtype, atype, btype, sparse=False, a_regs=False, sat="", extra=0, mods_order=None):
    word = "wgmma.mma_async" + (".sp" if sparse else "") + ".sync.aligned" + f".m{m}n{n}k{k}"
    word += sat + f".{dtype}.{atype}.{btype}" + (".and.popc" if atype == "b1" else "")
    d = wgmma_regs(n, dtype, extra)
    a = "{%r200, %r201, %r202, %r203}" if a_regs else "%rd1"
    ops = [d, a, "%rd2"] + (["%r204", "0"] if sparse else [])
    ops.append("%p1")
    sixteen = atype in ("f16", "bf16")
    if atype not in ("s8", "u8", "b1"):
        ops += ["1", "1"]
        if sixteen:
            ops += ["0"] if a_regs else ["0", "0"]
    return f"{word} {', '.join(ops)};"


def wgmma_variants():
    """wgmma.mma_async: every N of the PTX ISA table per type, the dense and sparse K, A from
    shared memory and from registers, plus wrong N, M, K, accumulator and register counts."""
    ns = list(range(8, 257, 8)) + [4, 60, 264]
    for dtype, atype, btype, k in WGMMA_TYPES:
        for n in ns:
            yield wgmma_form(64, n, k, dtype, atype, btype)
        for n in (8, 64, 256):
            if atype != "b1":
                yield wgmma_form(64, n, 2 * k, dtype, atype, btype, sparse=True)
                yield wgmma_form(64, n, k, dtype, atype, btype, sparse=True)
            yield wgmma_form(64, n, k, dtype, atype, btype, a_regs=True)
            yield wgmma_form(128, n, k, dtype, atype, btype)
            yield wgmma_form(64, n, 2 * k, dtype, atype, btype)
            yield wgmma_form(64, n, k // 2 if k > 8 else 16, dtype, atype, btype)
            yield wgmma_form(64, n, k, dtype, atype, btype, extra=1)
            if dtype == "s32":
                yield wgmma_form(64, n, k, dtype, atype, btype, sat=".satfinite")


ORDER_FORMS = [
    # (instruction-name words kept in place, a valid form)
    (2, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f10, %f11, %f12, %f13}, %rd1, %rd2, %p1, 1, 1, 0, 0;"),
    (2, "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 {%f10, %f11, %f12, %f13}, %rd1, %rd2, %r204, 0, %p1, "
        "1, 1, 0, 0;"),
    (2, "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8 {%r10, %r11, %r12, %r13}, %rd1, %rd2, %p1;"),
    (2, "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r10, %r11, %r12, %r13}, %rd1, %rd2, %p1;"),
    (1, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r10, %r11, %r12, %r13}, [%r1];"),
    (1, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r1], {%r10, %r11, %r12, %r13};"),
    (1, "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32 {%r10, %r11, %r12, %r13}, [%r1];"),
    (1, "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r1], {%r10};"),
    (4, "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
        ".L2::cache_hint [%r2], [%rd1, {%r10, %r11, %r12}], [%r3], {%rs1}, %rs2, %rd3;"),
    (4, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%rd1, {%r10, %r11}], [%r2], %rd3;"),
    (5, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r10, %r11}], [%r2];"),
    (5, "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint [%rd1, {%r10, %r11, %r12}], {%rs1}, %rd3;"),
    (4, "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::2"
        ".L2::cache_hint [%r2], [%rd1, {%r10, %r11, %r12, %r13, %r14}], [%r3], %rd3;"),
    (2, "tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd2, %rd3, [%r6], %r2, %p1;"),
    (2, "tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X.collector::a::fill [%r1], %rd2, %rd3, "
        "[%r6], %r2, [%r4], [%r7], %p1;"),
    (2, "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::lastuse [%r1], [%r5], %rd3, %r2, %p1;"),
    (1, "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1"
        ".e2m1.f32.ue4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r9, %r10}, {%f5, %f6, %f7, %f8}, "
        "%r11, 0x0, %r7, {%rs1, %rs2}, %r8, {%rs1, %rs2};"),
    (1, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {%rs1, %rs2}, %r8, "
        "{%rs1, %rs2};"),
]


def order_variants():
    """Modifier order: every valid form of ORDER_FORMS with every pair of its modifiers swapped
    (the instruction name stays: a misspelt instruction belongs to no family)."""
    for fixed, form in ORDER_FORMS:
        word, rest = form.split(" ", 1)
        parts = word.split(".")
        head, mods = parts[:fixed], parts[fixed:]
        yield form
        for i, j in itertools.combinations(range(len(mods)), 2):
            if mods[i] != mods[j]:
                m = mods[:]
                m[i], m[j] = m[j], m[i]
                yield ".".join(head + m) + " " + rest


FAMILIES = {"tcgen05": tcgen05_variants, "ldst": ldst_variants, "tma": tma_variants, "mma": mma_variants,
            "wgmma": wgmma_variants, "order": order_variants}


def module(target, variants):
    """PTX text and the line of each variant's instruction."""
    version = "9.0"
    lines = [f".version {version}", f".target {target}", ".address_size 64", ""]
    where = []
    for i, v in enumerate(variants):
        lines += [f".visible .entry k{i}()", "{", "\t.reg .pred %p<2>;", "\t.reg .b16 %rs<8>;",
                  "\t.reg .b32 %r<300>;", "\t.reg .b64 %rd<8>;", "\t.reg .f32 %f<300>;"]
        lines.append("\t" + v)
        where.append(len(lines))
        lines += ["\tret;", "}", ""]
    return "\n".join(lines) + "\n", where


def ptxas_verdicts(ptxas, target, variants, tmp, build=None):
    """variant index -> first ptxas error message (None = accepted). `build(target, variants)`
    returns the module text and each variant's line (default: `module`)."""
    build = build or module
    live = list(range(len(variants)))
    verdict = {}
    for _ in range(len(variants) + 1):
        if not live:
            break
        text, where = build(target, [variants[i] for i in live])
        path = os.path.join(tmp, "oracle.ptx")
        open(path, "w").write(text)
        r = subprocess.run([ptxas, f"-arch={target}", "-o", os.devnull, path], capture_output=True, text=True)
        errs = {}
        for l in r.stderr.splitlines():
            m = re.search(r", line (\d+); (?:error|fatal)\s*:\s*(.*)", l)
            if m:
                errs.setdefault(int(m.group(1)), m.group(2))
        if not errs:
            if r.returncode != 0:
                # A file-level error without a line (mixed cta_group): mark all remaining.
                for i in live:
                    verdict[i] = r.stderr.strip().splitlines()[0] if r.stderr.strip() else "rejected"
            break
        line_to_idx = {w: live[k] for k, w in enumerate(where)}
        bad = set()
        for line, msg in errs.items():
            # Map to the nearest variant line at or before (errors name the instruction line).
            cands = [w for w in where if w <= line + 1]
            if cands:
                idx = line_to_idx[max(cands)]
                verdict[idx] = msg
                bad.add(idx)
        if not bad:
            break
        live = [i for i in live if i not in bad]
    return {i: verdict.get(i) for i in range(len(variants))}


def irlint_flags(irlint, target, variants, tmp, build=None):
    text, where = (build or module)(target, variants)
    path = os.path.join(tmp, "oracle_irlint.ptx")
    open(path, "w").write(text)
    r = subprocess.run([irlint, "check", "--format", "json", path], capture_output=True, text=True)
    rep = json.loads(r.stdout)
    flagged = {}
    line_to_idx = {w: k for k, w in enumerate(where)}
    for d in rep.get("findings", []):
        if not d["rule"].startswith("atom-"):
            continue
        line = (d.get("values") or {}).get("ptx-line")
        if line in line_to_idx:
            flagged.setdefault(line_to_idx[line], d["rule"])
    return flagged


def find_ptxas():
    for base in site.getsitepackages():
        for p in sorted(glob.glob(os.path.join(base, "nvidia", "cu*", "bin", "ptxas"))):
            return p
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS") or find_ptxas())
    ap.add_argument("--irlint", default="target/release/irlint")
    ap.add_argument("--families", default="tcgen05,ldst,tma,mma,wgmma,order")
    ap.add_argument("--examples", action="store_true", help="print the disagreeing forms")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on any flagged-but-accepted form outside that class or any missed form")
    args = ap.parse_args()
    if not args.ptxas:
        print("ptxas not found (pip install nvidia-cuda-nvcc, or --ptxas)")
        return 0
    cells = [(fam, target) for fam in args.families.split(",") for target in TARGETS[fam]]
    spaces = {fam: list(FAMILIES[fam]()) for fam in args.families.split(",")}

    def run_cell(cell, tmp):
        fam, target = cell
        variants = spaces[fam]
        tmp = os.path.join(tmp, f"{fam}-{target}")
        os.makedirs(tmp)
        ptx = {}
        for start in range(0, len(variants), 400):
            for k, v in ptxas_verdicts(args.ptxas, target, variants[start:start + 400], tmp).items():
                ptx[start + k] = v
        fl = irlint_flags(args.irlint, target, variants, tmp)
        c = {"forms": len(variants), "both accept": 0, "both reject": 0, "flagged, ptxas accepts": 0,
             "of which i8 + scale-input-d": 0, "missed": 0, "missed (kind-word reason)": 0}
        notes = []
        for i, v in enumerate(variants):
            rej, flag = ptx[i] is not None, i in fl
            if rej and flag:
                c["both reject"] += 1
            elif not rej and not flag:
                c["both accept"] += 1
            elif flag:
                c["flagged, ptxas accepts"] += 1
                if ".kind::i8" in v and v.rstrip(";").endswith(", 3"):
                    c["of which i8 + scale-input-d"] += 1
                else:
                    notes.append(f"  FP {target}: {v}  [{fl[i]}]")
            else:
                c["missed"] += 1
                if SEED_REASON.search(ptx[i] or ""):
                    c["missed (kind-word reason)"] += 1
                    notes.append(f"  MISS(seed) {target}: {v}  [{ptx[i]}]")
                else:
                    notes.append(f"  MISS {target}: {v}  [{ptx[i]}]")
        return fam, target, c, notes

    # Cells run in parallel (each one ptxas process at a time, one irlint run).
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        rows = []
        for fam, target, c, notes in pool.map(lambda cell: run_cell(cell, tmp), cells):
            if args.examples and notes:
                print("\n".join(notes))
            rows.append((fam, target, c))
            print(fam, target, c, flush=True)
    keys = ["forms", "both accept", "both reject", "flagged, ptxas accepts", "of which i8 + scale-input-d", "missed",
            "missed (kind-word reason)"]
    print()
    print("| family | target | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for fam, target, c in rows:
        print(f"| {fam} | {target} | " + " | ".join(str(c[k]) for k in keys) + " |")
    total = {k: sum(c[k] for _, _, c in rows) for k in keys}
    print("| **all** | | " + " | ".join(f"**{total[k]}**" for k in keys) + " |")
    bad = total["flagged, ptxas accepts"] - total["of which i8 + scale-input-d"] + total["missed"]
    if args.check and bad:
        print(f"disagreements: {bad}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
