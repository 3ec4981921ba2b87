#!/usr/bin/env python3
"""Writes tests/fixtures/fossilize/*.foz: Fossilize databases (the StreamArchive
format of ValveSoftware/Fossilize, fossilize_db.cpp, version 6) holding SPIR-V
modules from ../shared/fixtures/spirv with known findings, written the way
Fossilize writes them (module JSON + NUL + varint words, zlib or stored, CRC-32
of the stored bytes), plus pipeline entries naming each module's stage and
entry point.

  sb.foz       sb_stride48_rw.spv (zlib) and sb_stride_mixed.spv (stored), a
               compute pipeline using the first, a graphics pipeline using the
               second as a fragment shader, and a pipeline-layout entry.
  damaged.foz  the same modules; the first with a corrupted CRC, then a module
               whose varint data is cut short, then the good stored module, then
               a truncated last entry (ignored, as Fossilize ignores it).

Usage: scripts/make_fossilize_fixtures.py [SHARED_FIXTURES_DIR]
"""
import json
import pathlib
import struct
import sys
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "fossilize"
SHARED = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "fixtures"

MAGIC = b"\x81FOSSILIZEDB\x00\x00\x00\x06"
TAG_PIPELINE_LAYOUT, TAG_SHADER_MODULE, TAG_GRAPHICS, TAG_COMPUTE = 3, 4, 6, 7
STAGE_FRAGMENT, STAGE_COMPUTE = 0x10, 0x20

H_STRIDE48 = 0x5B1D48_00C0FFEE
H_MIXED = 0x5B1D_3D00_0000_0002
H_CUT = 0x0BAD_0000_0000_0003


def varint(words: bytes) -> bytes:
    out = bytearray()
    for (w,) in struct.iter_unpack("<I", words):
        while w >= 0x80:
            out.append((w & 0x7F) | 0x80)
            w >>= 7
        out.append(w)
    return bytes(out)


def compact(doc) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def module_payload(h: int, spirv: bytes, cut: int = 0) -> bytes:
    enc = varint(spirv)
    if cut:
        enc = enc[:-cut]
    doc = {
        "version": 6,
        "shaderModules": {
            f"{h:016x}": {"varintOffset": 0, "varintSize": len(enc), "codeSize": len(spirv), "flags": 0}
        },
    }
    return compact(doc) + b"\0" + enc


def entry(tag: int, h: int, payload: bytes, deflate: bool, crc_xor: int = 0) -> bytes:
    name = (f"{tag:024x}" + f"{h:016x}").encode()
    stored = zlib.compress(payload, 9) if deflate else payload
    crc = zlib.crc32(stored) ^ crc_xor
    return name + struct.pack("<IIII", len(stored), 2 if deflate else 1, crc, len(payload)) + stored


def stage(h: int, bits: int, name: str):
    return {"flags": 0, "name": name, "module": f"{h:016x}", "stage": bits}


def main():
    s48 = (SHARED / "spirv" / "sb_stride48_rw.spv").read_bytes()
    mixed = (SHARED / "spirv" / "sb_stride_mixed.spv").read_bytes()
    compute = compact({"version": 6, "computePipelines": {"00000000000000c1": {
        "flags": 0, "layout": "00000000000000a1", "basePipelineHandle": "0000000000000000",
        "basePipelineIndex": -1, "stage": stage(H_STRIDE48, STAGE_COMPUTE, "main")}}})
    graphics = compact({"version": 6, "graphicsPipelines": {"00000000000000c2": {
        "flags": 0, "stages": [stage(H_MIXED, STAGE_FRAGMENT, "main")]}}})
    layout = compact({"version": 6, "pipelineLayouts": {"00000000000000a1": {
        "flags": 0, "pushConstantRanges": [], "setLayouts": []}}})
    OUT.mkdir(parents=True, exist_ok=True)
    good = MAGIC + b"".join([
        entry(TAG_PIPELINE_LAYOUT, 0xA1, layout, True),
        entry(TAG_SHADER_MODULE, H_STRIDE48, module_payload(H_STRIDE48, s48), True),
        entry(TAG_SHADER_MODULE, H_MIXED, module_payload(H_MIXED, mixed), False),
        entry(TAG_COMPUTE, 0xC1, compute, True),
        entry(TAG_GRAPHICS, 0xC2, graphics, False),
    ])
    (OUT / "sb.foz").write_bytes(good)
    tail = entry(TAG_SHADER_MODULE, 0x7A11, module_payload(0x7A11, s48), True)
    damaged = MAGIC + b"".join([
        entry(TAG_SHADER_MODULE, H_STRIDE48, module_payload(H_STRIDE48, s48), True, crc_xor=0x1),
        entry(TAG_SHADER_MODULE, H_CUT, module_payload(H_CUT, s48, cut=3), True),
        entry(TAG_SHADER_MODULE, H_MIXED, module_payload(H_MIXED, mixed), False),
        tail[: len(tail) // 2],
    ])
    (OUT / "damaged.foz").write_bytes(damaged)
    for p in sorted(OUT.glob("*.foz")):
        print(p.name, p.stat().st_size)


if __name__ == "__main__":
    main()
