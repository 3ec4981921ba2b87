"""The quick start of docs/python.md runs as written: on a PTX kernel (findings
with a line and a Python source line) and, with the file name changed, on a
DXIL container (findings without a line, which must not print `:None`)."""

import contextlib
import io
import shutil

from conftest import ROOT


def quick_start_check() -> str:
    """The first paragraph of the quick start: `irlint.check` and the loop over
    its findings (the rest needs a `build/shaders` tree)."""
    doc = (ROOT / "docs/python.md").read_text()
    start = doc.index("```python", doc.index("## Quick start")) + len("```python")
    block = doc[start : doc.index("```", start)]
    first = block[: block.index("\nreport = irlint.check_paths")]
    assert "read_bytes()" in first, "the quick start reads shaders as bytes"
    return first


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    return out.getvalue()


def test_quick_start_on_ptx(tmp_path, monkeypatch):
    shutil.copy(ROOT / "tests/fixtures/ptx_loc/dot_scaled.ptx", tmp_path / "kernel.ptx")
    shutil.copy(ROOT / "tests/fixtures/ptx_loc/dot_scaled.py", tmp_path / "dot_scaled.py")
    monkeypatch.chdir(tmp_path)
    out = run(quick_start_check())
    assert out.splitlines() == [
        "error[atom-tcgen05-kind] kernel.ptx:14: INT8 type is supported only on arch-conditional variants.",
        '    from dot_scaled.py:6:     acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")',
        "1",
    ]


def test_quick_start_on_dxil_prints_no_none(tmp_path, monkeypatch):
    shutil.copy(ROOT / "shaders/examples/sb_stride20_pos_uv.dxil", tmp_path / "kernel.dxil")
    code = quick_start_check().replace('"kernel.ptx"', '"kernel.dxil"')
    monkeypatch.chdir(tmp_path)
    out = run(code)
    assert "None" not in out
    assert out.splitlines() == [
        "warning[structured-buffer-stride-not-cache-aligned] kernel.dxil: element stride 20 bytes "
        "straddles 32-byte lines; pad to 32, reorder fields, or split into parallel buffers",
        "1",
    ]
