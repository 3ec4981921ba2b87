#!/usr/bin/env python3
"""Writes a libtorch_cuda.so-sized ELF for the fatbin scale check (docs/performance.md).

usage: scripts/make_big_fatbin.py OUT.so CONTAINERS [BIG_PTX_MB]

The file is a minimal ELF64 whose .nv_fatbin section holds CONTAINERS fatbin
containers, each with one real zstd PTX entry (the compute_80 entry of
tests/fixtures/fatbin/k.default.fatbin) and four stored 48 KiB SASS entries
(random bytes), like the SASS-heavy sections of CUDA libraries, plus three
big PTX entries of BIG_PTX_MB MB each (the fixture kernel repeated under new
names, compressed with the `zstd` command-line tool, as nvcc's default mode
does). Needs `zstd` on PATH.
"""
import os
import pathlib
import random
import struct
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "fatbin"


def entry_header(kind, arch, payload_len, flags, compressed=0, decompressed=0, major=9, minor=5):
    h = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, 64, payload_len, compressed, 0, minor, major, arch, 0, 0,
                    flags, 0, decompressed)
    assert len(h) == 64
    return h


def entry(kind, arch, data, flags, decompressed=0):
    pad = (-len(data)) % 8
    compressed = len(data) if flags & 0x8000 else 0
    return entry_header(kind, arch, len(data) + pad, flags, compressed, decompressed) + data + b"\0" * pad


def container(entries):
    body = b"".join(entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def small_ptx_entry():
    d = (FIX / "k.default.fatbin").read_bytes()
    hsz, psz = struct.unpack_from("<IQ", d, 0x14)
    return d[0x10:0x10 + hsz + psz]


def big_ptx(mb):
    text = (FIX / "k.compute_80.ptx").read_text()
    head, _, body = text.partition("// .globl")
    body = "// .globl" + body
    parts = [head]
    i = 0
    while sum(map(len, parts)) < mb << 20:
        parts.append(body.replace("_Z1kPj", f"_Z1kPj_{i}"))
        i += 1
    raw = "".join(parts).encode() + b"\0"
    z = subprocess.run(["zstd", "-q", "-c", "-3"], input=raw, capture_output=True, check=True).stdout
    return entry(1, 80, z, 0x8011, decompressed=len(raw)), len(raw), i


def elf(section):
    shstr = b"\0.nv_fatbin\0.shstrtab\0"
    off_sec = 64
    off_str = off_sec + len(section)
    off_sh = (off_str + len(shstr) + 7) & ~7
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, off_sh, 0, 64, 0, 0, 64, 3, 2)
    sh = b"\0" * 64
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, off_sec, len(section), 0, 0, 8, 0)
    sh += struct.pack("<IIQQQQIIQQ", 12, 3, 0, 0, off_str, len(shstr), 0, 0, 1, 0)
    pad = b"\0" * (off_sh - off_str - len(shstr))
    return eh + section + shstr + pad + sh


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    big_mb = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    rng = random.Random(1)
    ptx = small_ptx_entry()
    sass = [entry(2, arch, rng.randbytes(48 << 10), 0x11, decompressed=0) for arch in (80, 86, 90, 100)]
    chunks = [container([ptx] + sass) for _ in range(n)]
    big, raw_len, kernels = big_ptx(big_mb)
    for _ in range(3):
        chunks.append(container([big]))
    data = elf(b"".join(chunks))
    pathlib.Path(out).write_bytes(data)
    print(f"{out}: {len(data)} bytes, {n} small PTX entries, {4 * n} SASS entries, "
          f"3 PTX entries of {raw_len} bytes ({kernels} kernels, {len(big)} stored)")


if __name__ == "__main__":
    main()
