#!/usr/bin/env python3
"""Seeds the fuzz corpora with the hostile inputs of ../shared/hostile/generate.py.

usage: python3 scripts/fuzz-seeds.py [SHARED_DIR]

Writes every generated file (the large ones included) into fuzz/corpus/<target>/ for the fuzz
targets that read that kind of input, and the raw bitcode of the DXIL ones into
fuzz/corpus/bitstream/. The small files are also checked in under fuzz/seeds/<target>/; run a
target over both: `cargo +nightly fuzz run spirv fuzz/corpus/spirv fuzz/seeds/spirv`.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared")
sys.path.insert(0, os.path.join(SHARED, "hostile"))
import generate  # noqa: E402

TARGETS = {
    ".spv": ["spirv", "pipeline"],
    ".dxil": ["dxil_module", "container", "pipeline"],
    ".bin": ["pipeline"],
}


def main():
    for name, make in generate.PUBLIC:
        data = make()
        ext = os.path.splitext(name)[1]
        outs = [(t, data) for t in TARGETS.get(ext, ["pipeline"])]
        if ext == ".dxil":
            bc = data.find(b"BC\xc0\xde")
            if bc >= 0:
                outs.append(("bitstream", data[bc:]))
        for target, blob in outs:
            d = os.path.join(ROOT, "fuzz", "corpus", target)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "hostile-" + name), "wb") as f:
                f.write(blob)
            print(f"fuzz/corpus/{target}/hostile-{name} ({len(blob)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
