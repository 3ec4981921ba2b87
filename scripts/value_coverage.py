#!/usr/bin/env python3
"""How much of the PTX descriptor and address operands the dataflow knows.

Reads `irlint dump --format json` of the given PTX files or folders (or a saved
dump with `--json FILE`) and prints, per operand class, how many operands are
"known":

- tcgen05.mma / wgmma shared-memory descriptors (`a_desc_fields`,
  `b_desc_fields`): the layout type known, and for tcgen05 the version too;
- ldmatrix / stmatrix addresses (`ld-st-matrix` `address`): alignment to 16
  bytes decided (known aligned or known misaligned);
- mbarrier addresses (`mbarrier` `address`): alignment to 8 bytes decided.

An address is decided when the dump gives a constant, a set whose members
agree modulo the alignment, or `R mod 2^k` with `2^k` at least the alignment.

    python3 scripts/value_coverage.py ../shared/corpus/ptx
    python3 scripts/value_coverage.py --irlint target/release/irlint --min 95 DIR...

With `--min P` the exit status is 1 when a class is below P percent.
"""

import argparse
import json
import os
import re
import subprocess
import sys

NEED = {"ld-st-matrix": 16, "mbarrier": 8}
CLASSES = [
    ("tcgen05-mma", "a_desc"),
    ("tcgen05-mma", "b_desc"),
    ("wgmma", "a_desc"),
    ("wgmma", "b_desc"),
    ("ld-st-matrix", "address"),
    ("mbarrier", "address"),
]


def fields(text):
    """`a=1 b=? c=3` -> {'a': '1', 'b': '?', 'c': '3'} (repeated names keep the first)."""
    out = {}
    for part in (text or "").split():
        k, _, v = part.partition("=")
        out.setdefault(k, v)
    return out


def desc_known(kind, text):
    f = fields(text)
    keys = ["layout_type"] + (["version"] if kind == "tcgen05-mma" else [])
    return all(f.get(k, "?") != "?" for k in keys)


def address_decided(value, need):
    """Is `value` (a dump operand) known modulo `need` (a power of two)?"""
    if isinstance(value, int):
        return True
    if not isinstance(value, str):
        return False
    _, sep, what = value.partition(" = ")
    if not sep:
        return False
    m = re.match(r"\{([0-9, ]+)\}$", what)
    if m:
        members = [int(x) for x in m.group(1).split(",")]
        return len({x % need for x in members}) == 1
    m = re.match(r"(\d+) mod (\d+)", what)
    if m:
        return int(m.group(2)) >= need
    return bool(re.fullmatch(r"\d+", what))


def ptx_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    if n.endswith(".ptx"):
                        yield os.path.join(root, n)
        else:
            yield p


def dump(irlint, paths):
    files = sorted(set(ptx_files(paths)))
    out = {"files": []}
    for i in range(0, len(files), 32):
        r = subprocess.run(
            [irlint, "dump", "--format", "json", *files[i : i + 32]],
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            got = json.loads(r.stdout)["files"]
        except (ValueError, KeyError):
            sys.exit(f"irlint dump failed ({r.returncode}) on {files[i : i + 32][:2]}...: {r.stderr[:400]}")
        out["files"].extend(got)
    return out


def measure(d):
    counts = {c: [0, 0] for c in CLASSES}
    unknown = {c: [] for c in CLASSES}
    for f in d["files"]:
        for o in f.get("ops") or []:
            kind = o.get("kind")
            for c in CLASSES:
                if c[0] != kind or c[1] not in o:
                    continue
                if c[1] == "address":
                    ok = address_decided(o["address"], NEED[kind])
                else:
                    ok = desc_known(kind, o.get(c[1] + "_fields"))
                counts[c][0] += ok
                counts[c][1] += 1
                if not ok:
                    unknown[c].append((f.get("path"), o.get("ptx_line")))
    return counts, unknown


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--irlint", default="target/debug/irlint")
    ap.add_argument("--json", help="a saved `irlint dump --format json` instead of running irlint")
    ap.add_argument("--min", type=float, help="fail when a class is below this percentage")
    ap.add_argument("--show", type=int, default=0, help="list this many unknown operands per class")
    a = ap.parse_args()
    if a.json:
        with open(a.json) as fh:
            d = json.load(fh)
    else:
        d = dump(a.irlint, a.paths)
    counts, unknown = measure(d)
    bad = [f for f in d["files"] if f.get("status") != "ok"]
    print(f"{len(d['files'])} files, {len(bad)} not read")
    for f in bad[: a.show]:
        print(f"    not read: {f.get('path')}: {f.get('message')}")
    print(f"{'operand':<28} {'known':>7} {'total':>7} {'share':>7}")
    low = False
    for c in CLASSES:
        k, n = counts[c]
        share = 100.0 * k / n if n else 100.0
        low |= a.min is not None and share < a.min
        print(f"{c[0] + ' ' + c[1]:<28} {k:>7} {n:>7} {share:>6.1f}%")
        for path, line in unknown[c][: a.show]:
            print(f"    unknown: {path}:{line}")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
