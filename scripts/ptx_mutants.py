#!/usr/bin/env python3
"""Mutation test: one-token edits of real matrix instructions, judged by ptxas.

Takes the wgmma.mma_async, tcgen05.mma, block-scaled mma, ldmatrix/stmatrix and
cp.async.bulk.tensor (and cp.reduce / prefetch) instructions of the PTX corpus
(Triton and nvcc output, `../shared/corpus/ptx`), one per distinct spelling and
target, and edits one token of each: a shape (N +-8, K x2 and /2, M x2), a type, a
count (`.xN`, `.Nd`), a modifier (dropped, or a kind / cta_group / scale vector /
state space replaced), the order of two neighbouring modifiers, or the operand
lists (a coordinate or register dropped or added). Each mutant is placed in a kernel
with the register declarations of the function it came from, assembled with ptxas
under the source module's `.version` and `.target` (rejected kernels are removed and
the file re-assembled, as in `ptx_oracle.py`), and checked with `irlint check`.

Edits of the instruction name itself (`wgmma.mma_async`, `cp.async.bulk.tensor`,
`tcgen05.mma.ws`) are not generated: a misspelt instruction belongs to no family.

    scripts/ptx_mutants.py [--corpus DIR] [--ptxas PATH] [--irlint PATH] [--examples] [--check]

Prints, per family and target: instructions, mutants, accepted, rejected, flagged
although ptxas accepts (false positives), and rejected but not flagged (missed).
With --check, exits 1 when either of the last two is non-zero.
"""
import argparse
import collections
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_oracle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = [  # instruction name words that a mutant keeps as they are, longest first
    ("cp.async.bulk.prefetch.tensor", "tma"), ("cp.reduce.async.bulk.tensor", "tma"), ("cp.async.bulk.tensor", "tma"),
    ("wgmma.mma_async", "wgmma"), ("tcgen05.mma.ws", "tcgen05"), ("tcgen05.mma", "tcgen05"),
    ("ldmatrix", "ldst"), ("stmatrix", "ldst"), ("mma", "mma"),
]
TYPE_SWAP = {
    "f32": ["f16"], "f16": ["f32", "bf16"], "bf16": ["f16"], "e4m3": ["e5m2", "e2m1"], "e5m2": ["e4m3"],
    "tf32": ["f16"], "s8": ["u8"], "u8": ["s8"], "b16": ["b8"], "b8": ["b16"], "s32": ["f32"], "e2m1": ["e4m3"],
}
KIND_SWAP = {
    "kind::f16": ["kind::tf32", "kind::i8", "kind::mxf8f6f4"], "kind::tf32": ["kind::f16"],
    "kind::f8f6f4": ["kind::mxf8f6f4", "kind::i8"], "kind::mxf8f6f4": ["kind::f8f6f4", "kind::mxf4"],
    "kind::mxf4nvf4": ["kind::mxf4"], "kind::mxf4": ["kind::mxf4nvf4"],
    "cta_group::1": ["cta_group::2"], "cta_group::2": ["cta_group::1"],
    "scale_vec::1X": ["scale_vec::2X"], "scale_vec::2X": ["scale_vec::1X", "scale_vec::4X"],
    "scale_vec::4X": ["scale_vec::2X"], "shared::cta": ["shared::cluster"], "shared::cluster": ["shared::cta"],
    "trans": [], "tile": ["im2col", "tile::gather4"],
}
INSTR = re.compile(r"^\s*(@!?%\w+\s+)?((wgmma\.mma_async|tcgen05\.mma|ldmatrix|stmatrix|cp\.async\.bulk\.tensor"
                   r"|cp\.reduce\.async\.bulk\.tensor|cp\.async\.bulk\.prefetch\.tensor|mma)[\w.:]*)\s+(.*;)\s*$")


def family_of(word):
    for name, fam in NAMES:
        if word == name or word.startswith(name + "."):
            if fam == "mma" and "kind::" not in word and "block_scale" not in word:
                return None, None
            return name, fam
    return None, None


def corpus_instructions(corpus):
    """(family, target, version, decls, predicate, word, operands) per distinct spelling."""
    seen = set()
    out = []
    for dirpath, _, files in sorted(os.walk(corpus)):
        for name in sorted(files):
            if not name.endswith(".ptx"):
                continue
            text = open(os.path.join(dirpath, name), errors="replace").read()
            target = re.search(r"^\.target\s+(\w+)", text, re.M)
            version = re.search(r"^\.version\s+([\d.]+)", text, re.M)
            if not target or not version:
                continue
            decls = []
            depth = 0
            for line in text.splitlines():
                if re.match(r"^\s*(\.(visible|weak|extern)\s+)?\.(entry|func)\b", line):
                    decls, depth = [], 0
                elif depth == 1 and re.match(r"^\s*\.reg\s", line):
                    decls.append(line.strip())  # the function's own registers, not an inline-asm block's
                depth += line.count("{") - line.count("}")
                m = INSTR.match(line)
                if not m:
                    continue
                word, operands = m.group(2), m.group(4)
                base, fam = family_of(word)
                if fam is None or re.search(r"(?<![%\w])[A-Za-z_$][\w$]*", re.sub(r"%\w+|0[xX][0-9a-fA-F]+", "", operands)):
                    continue  # a symbol operand (a parameter or a shared array): no self-contained kernel
                key = (fam, target.group(1), word, re.sub(r"%\w+", "%", operands))
                if key in seen:
                    continue
                seen.add(key)
                out.append((fam, target.group(1), version.group(1), tuple(decls), m.group(1) or "", word, operands))
    return out


def vectors(operands):
    return [(m.start(), m.end()) for m in re.finditer(r"\{[^{}]*\}", operands)]


def mutants(fam, word, operands):
    """(kind of edit, mutated instruction text) for one instruction."""
    base, _ = family_of(word)
    mods = word[len(base) + 1:].split(".") if len(word) > len(base) else []
    out = []

    def put(kind, new_mods, ops=operands):
        out.append((kind, ".".join([base] + new_mods) + " " + ops))

    for i in range(len(mods) - 1):
        if mods[i] != mods[i + 1]:
            m = mods[:]
            m[i], m[i + 1] = m[i + 1], m[i]
            put("order", m)
    for i, x in enumerate(mods):
        if x not in ("sync", "aligned"):
            put("modifier", mods[:i] + mods[i + 1:])
        shape = re.fullmatch(r"m(\d+)n(\d+)(?:k(\d+))?", x)
        repl = []
        if shape:
            mm, nn, kk = int(shape.group(1)), int(shape.group(2)), shape.group(3)
            ks = f"k{kk}" if kk else ""
            repl += [f"m{mm}n{nn + 8}{ks}", f"m{mm * 2}n{nn}{ks}"]
            if nn > 8:
                repl.append(f"m{mm}n{nn - 8}{ks}")
            if kk:
                repl += [f"m{mm}n{nn}k{int(kk) * 2}", f"m{mm}n{nn}k{int(kk) // 2}"]
            if not kk:
                repl += ["m16n16", "m8n16", "m16n8"]
            kind = "shape"
        elif x in TYPE_SWAP:
            repl, kind = TYPE_SWAP[x], "type"
        elif re.fullmatch(r"x\d", x):
            repl, kind = [y for y in ("x1", "x2", "x3", "x4") if y != x], "count"
        elif re.fullmatch(r"\dd", x):
            repl, kind = [f"{int(x[0]) + d}d" for d in (-1, 1) if 1 <= int(x[0]) + d <= 5], "count"
        elif x in KIND_SWAP:
            repl, kind = KIND_SWAP[x], "modifier"
        for r in repl:
            put(kind, mods[:i] + [r] + mods[i + 1:])
    if fam in ("ldst",) and "trans" not in mods:
        put("modifier", mods + ["trans"])
    # Operand lists: the coordinate vector of a tensor copy, the register vectors of the others.
    vs = vectors(operands)
    for a, b in vs[:2] if fam != "tma" else vs[:1]:
        regs = [r.strip() for r in operands[a + 1:b - 1].split(",") if r.strip()]
        kind = "coordinates" if fam == "tma" else "registers"
        if len(regs) > 1:
            put(kind, mods, operands[:a] + "{" + ", ".join(regs[:-1]) + "}" + operands[b:])
        if regs:
            put(kind, mods, operands[:a] + "{" + ", ".join(regs + [regs[-1]]) + "}" + operands[b:])
    return out


def build_for(version):
    """A module builder over (decls, predicate, instruction) items for ptx_oracle's loop."""
    def build(target, chosen):
        lines = [f".version {version}", f".target {target}", ".address_size 64", ""]
        where = []
        for i, (decls, pred, ins) in enumerate(chosen):
            lines += [f".visible .entry m{i}()", "{"] + ["\t" + d for d in decls]
            lines.append("\t" + pred + ins)
            where.append(len(lines))
            lines += ["\tret;", "}", ""]
        return "\n".join(lines) + "\n", where
    return build


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "ptx"))
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS") or ptx_oracle.find_ptxas())
    ap.add_argument("--irlint", default=os.path.join(ROOT, "target", "release", "irlint"))
    ap.add_argument("--per-family", type=int, default=12, help="instructions per family and target")
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if not args.ptxas:
        print("ptxas not found (pip install nvidia-cuda-nvcc, or --ptxas): mutation test skipped")
        return 0
    if not os.path.isdir(args.corpus):
        print(f"corpus {args.corpus} not found: mutation test skipped")
        return 0
    count = collections.Counter()
    groups = collections.defaultdict(list)  # (target, version) -> [(family, edit, decls, pred, text)]
    for fam, target, version, decls, pred, word, operands in corpus_instructions(args.corpus):
        if count[(fam, target)] >= args.per_family:
            continue
        count[(fam, target)] += 1
        for kind, text in mutants(fam, word, operands):
            groups[(target, version)].append((fam, kind, decls, pred, text))

    def judge(key, tmp):
        items = groups[key]
        tmp = os.path.join(tmp, "-".join(key))
        os.makedirs(tmp)
        triples = [(d, p, t) for _, _, d, p, t in items]
        build = build_for(key[1])
        verdict = {}
        for start in range(0, len(triples), 400):
            for k, v in ptx_oracle.ptxas_verdicts(args.ptxas, key[0], triples[start:start + 400], tmp, build).items():
                verdict[start + k] = v
        flags = ptx_oracle.irlint_flags(args.irlint, key[0], triples, tmp, build)
        return key, verdict, flags

    rows = collections.defaultdict(collections.Counter)
    edits = collections.defaultdict(collections.Counter)
    notes = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for key, verdict, flags in pool.map(lambda k: judge(k, tmp), sorted(groups)):
            for i, (fam, kind, _, _, text) in enumerate(groups[key]):
                row, edit = rows[(fam, key[0])], edits[kind]
                rejected, flagged = verdict[i] is not None, i in flags
                for r in (row, edit):
                    r["mutants"] += 1
                    r["rejected" if rejected else "accepted"] += 1
                    r["flagged, ptxas accepts"] += flagged and not rejected
                    r["missed"] += rejected and not flagged
                if flagged and not rejected:
                    notes.append(f"  FP {key[0]} [{kind}] {text}  [{flags[i]}]")
                elif rejected and not flagged:
                    notes.append(f"  MISS {key[0]} [{kind}] {text}  [{verdict[i]}]")
    cols = ["instructions", "mutants", "accepted", "rejected", "flagged, ptxas accepts", "missed"]
    for (fam, target), n in count.items():
        rows[(fam, target)]["instructions"] = n
    if args.examples:
        print("\n".join(notes))
    print("| family | target | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for fam, target in sorted(rows):
        print(f"| {fam} | {target} | " + " | ".join(str(rows[(fam, target)][c]) for c in cols) + " |")
    total = {c: sum(r[c] for r in rows.values()) for c in cols}
    print("| **all** | | " + " | ".join(f"**{total[c]}**" for c in cols) + " |")
    print()
    print("| edit | " + " | ".join(cols[1:]) + " |")
    print("|---|" + "---|" * (len(cols) - 1))
    for kind in sorted(edits):
        print(f"| {kind} | " + " | ".join(str(edits[kind][c]) for c in cols[1:]) + " |")
    bad = total["flagged, ptxas accepts"] + total["missed"]
    if args.check and bad:
        print(f"disagreements: {bad}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
