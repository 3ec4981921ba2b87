"""irlint.check on DXIL, SPIR-V and PTX: the same report as `irlint check` on
the same file (JSON byte for byte, SARIF, human text, exit code), typed
findings that carry the JSON's fields, kinds, configs and bad input."""

import json
import os
from pathlib import Path

import pytest

import irlint
from conftest import ROOT, cli_json, run_cli, zero_seconds

DXIL = [
    "shaders/examples/la_load_stride_mismatch.g.dxil",
    "shaders/examples/la_load_stride_ok.dxil",
    "shaders/examples/lv_load_computed_misaligned.dxil",
    "shaders/examples/lv_load_misaligned_const.g.dxil",
    "shaders/examples/sb_stride20_pos_uv.dxil",
    "tests/fixtures/dxil/la_load_stride_mismatch.dxil",
]
SPIRV = [
    "shaders/examples/sb_stride48_rw.spv",
    "shaders/examples/sl_coopvec_stride_mismatch.spv",
    "tests/fixtures/spirv/sb_stride_mixed.g.spv",
    "tests/fixtures/spirv/lv_load_misaligned_const.spv",
]
PTX = [
    "tests/fixtures/ptx/atoms_sm100a.ptx",
    "tests/fixtures/ptx_desc/shared_address.ptx",
    "tests/fixtures/ptx_desc/tcgen05_instr_desc.ptx",
    "tests/fixtures/ptx_desc/wgmma_desc.ptx",
    "tests/fixtures/ptx_loc/dot_scaled.ptx",
    "tests/fixtures/ptx_nvcc/k.sm_100a.edited.ptx",
]
ALL = DXIL + SPIRV + PTX


def read(rel: str) -> bytes:
    return (ROOT / rel).read_bytes()


@pytest.mark.parametrize("rel", ALL)
def test_to_json_is_the_cli_json_byte_for_byte(irlint_bin, rel):
    report = irlint.check(read(rel), path=rel)
    code, out, _ = run_cli(irlint_bin, ["check", rel, "--format", "json", "--no-progress"])
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert report.exit_code == code


@pytest.mark.parametrize("rel", ALL)
def test_sarif_and_text_are_the_cli_output(irlint_bin, rel):
    report = irlint.check(read(rel), path=rel)
    _, sarif, _ = run_cli(irlint_bin, ["check", rel, "--format", "sarif"])
    _, text, _ = run_cli(irlint_bin, ["check", rel, "--no-progress"])
    assert report.to_sarif() == sarif
    assert report.to_text() == text


def test_every_kind_has_findings_in_the_comparison(irlint_bin):
    """The byte-for-byte comparisons above are not vacuous: each kind has findings."""
    for group, least in ((DXIL, 5), (SPIRV, 3), (PTX, 30)):
        total = sum(len(irlint.check(read(rel), path=rel)) for rel in group)
        assert total >= least, group


@pytest.mark.parametrize("rel", ALL)
def test_findings_carry_the_json_fields(irlint_bin, rel):
    report = irlint.check(read(rel), path=rel)
    _, cli, _ = cli_json(irlint_bin, ["check", rel, "--format", "json"])
    assert len(report.findings) == len(cli["findings"])
    for f, j in zip(report.findings, cli["findings"]):
        assert isinstance(f, irlint.Finding)
        assert (f.rule, f.level, f.certainty, f.message, f.help) == (
            j["rule"],
            j["level"],
            j["certainty"],
            j["message"],
            j["help"],
        )
        assert list(f.values.items()) == list(j["values"].items())
        assert f.resource == j["resource"]
        loc = f.location
        assert isinstance(loc, irlint.Location)
        assert (loc.path, loc.function, loc.instruction, loc.byte_offset, loc.blob_offset, loc.value) == (
            j["path"],
            j["function"],
            j["instruction"],
            j["byte_offset"],
            j["blob_offset"],
            j["value"],
        )
        assert loc.line == j.get("line")
        src = j["source"]
        if src is None:
            assert (loc.source_file, loc.source_line, loc.source_column) == (None, None, None)
        else:
            assert (loc.source_file, loc.source_line) == (src["file"], src["line"])
            assert loc.source_column == (src["column"] or None)
    assert [(x.path, x.kind, x.status, x.message) for x in report.files] == [
        (j["path"], j["kind"], j["status"], j["message"]) for j in cli["files"]
    ]


def test_ptx_loc_gives_the_python_source_line():
    rel = "tests/fixtures/ptx_loc/dot_scaled.ptx"
    (f,) = irlint.check(read(rel).decode(), path=rel).findings
    assert f.rule == "atom-tcgen05-kind"
    assert f.message == "INT8 type is supported only on arch-conditional variants."
    assert (f.location.function, f.location.line, f.location.byte_offset) == ("kernel", 14, 326)
    # `.file` records `dot_scaled.py`: the file beside the PTX, relative to the working directory.
    assert (f.location.source_file, f.location.source_line, f.location.source_column) == (
        "tests/fixtures/ptx_loc/dot_scaled.py",
        6,
        11,
    )
    assert f.location.source_text == '    acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")'
    assert f.values == {"ptx-line": 14, "instruction": "tcgen05.mma.cta_group::1.kind::i8"}


def test_dxil_debug_info_gives_the_hlsl_line():
    rel = "shaders/examples/lv_load_misaligned_const.g.dxil"
    (f,) = irlint.check(read(rel), path=rel)
    assert f.rule == "long-vector-bytebuf-load-misaligned"
    assert f.location.source_file is not None and f.location.source_file.endswith(".hlsl")
    assert f.location.source_line is not None and f.location.source_line > 0
    assert f.location.source_text is not None and "Load" in f.location.source_text


def test_report_protocol():
    rel = "tests/fixtures/ptx_desc/wgmma_desc.ptx"
    report = irlint.check(read(rel), path=rel)
    assert len(report) == 4
    assert [f.rule for f in report] == [f.rule for f in report.findings]
    assert all(f.rule == "wgmma-smem-descriptor" for f in report)
    assert report.exit_code == 1
    assert repr(report) == "Report(findings=4, files=1, exit_code=1)"
    assert [(x.path, x.kind, x.status) for x in report.files] == [(rel, "ptx", "ok")]
    clean = irlint.check(read("shaders/examples/la_load_stride_ok.dxil"))
    assert (len(clean), clean.exit_code, bool(clean)) == (0, 0, False)
    assert clean.files[0].path == "<bytes>"


def test_str_bytes_and_bytearray_give_one_report():
    rel = "tests/fixtures/ptx_desc/wgmma_desc.ptx"
    data = read(rel)
    a = irlint.check(data, path=rel).to_json()
    b = irlint.check(data.decode(), path=rel).to_json()
    c = irlint.check(bytearray(data), path=rel).to_json()
    assert zero_seconds(a) == zero_seconds(b) == zero_seconds(c)
    assert irlint.check(data.decode()).files[0].path == "<string>"
    assert irlint.check(data, path=Path(rel)).files[0].path == rel
    with pytest.raises(TypeError, match="data must be bytes, bytearray or str, not int"):
        irlint.check(3)


def test_embedded_shader_in_a_binary(irlint_bin, tmp_path):
    blob = read("shaders/examples/sb_stride20_pos_uv.dxil")
    data = b"\x7fELF-not-really" + b"\0" * 49 + blob + b"trailer"
    target = tmp_path / "app.bin"
    target.write_bytes(data)
    report = irlint.check(data, path=str(target))
    code, out, _ = run_cli(irlint_bin, ["check", str(target), "--format", "json"])
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert code == report.exit_code == 1
    assert [(f.kind, f.status, f.blob_offset) for f in report.files] == [("binary", "ok", None), ("dxil", "ok", 64)]
    assert report.findings[0].location.blob_offset == 64


def test_kind_reads_the_data_as_that_kind():
    ptx = read("tests/fixtures/ptx_desc/wgmma_desc.ptx")
    assert len(irlint.check(ptx, kind="ptx")) == 4
    with pytest.raises(irlint.InputError) as e:
        irlint.check(read("shaders/examples/sb_stride48_rw.spv"), kind="dxil")
    assert e.value.message == "bad magic: not a DXBC container (magic is not 'DXBC') at byte offset 0x0 (0)"
    with pytest.raises(irlint.ConfigError) as e:
        irlint.check(ptx, kind="cuda")
    assert str(e.value) == "unknown kind `cuda`; expected one of: dxil, spirv, ptx, hlsl, bitcode, dxbc, binary"


BAD = {
    "truncated.dxil": lambda: read("shaders/examples/sb_stride20_pos_uv.dxil")[:200],
    "cut.spv": lambda: read("shaders/examples/sb_stride48_rw.spv")[:-6],
    "bad_operand.ptx": lambda: read("tests/fixtures/ptx/bad_operand.ptx"),
    "text.dxil": lambda: b"not a shader at all\n",
    "empty.spv": lambda: b"",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_with_the_cli_message(irlint_bin, tmp_path, name):
    data = BAD[name]()
    target = tmp_path / name
    target.write_bytes(data)
    code, cli, _ = cli_json(irlint_bin, ["check", str(target), "--format", "json"])
    assert code == 2
    (err,) = [f for f in cli["findings"] if f["rule"] == "input-error"]
    with pytest.raises(irlint.InputError) as e:
        irlint.check(data, path=str(target))
    assert isinstance(e.value, irlint.IrlintError)
    assert e.value.message == err["message"]
    assert e.value.path == str(target)
    assert str(e.value) == f"{target}: {err['message']}"
    assert e.value.report.exit_code == 2
    assert zero_seconds(e.value.report.to_json()) == zero_seconds(json.dumps(cli, indent=2) + "\n")


def test_ptx_input_error_has_line_and_column(irlint_bin, tmp_path):
    # A PTX file cut mid-instruction: the error names the line and column, as in the CLI's JSON.
    target = tmp_path / "trunc.ptx"
    target.write_bytes(b".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n  add.u32 %r1, %r2,")
    code, cli, _ = cli_json(irlint_bin, ["check", str(target), "--format", "json"])
    assert code == 2
    (err,) = [f for f in cli["findings"] if f["rule"] == "input-error"]
    with pytest.raises(irlint.InputError) as e:
        irlint.check(target.read_bytes(), path=str(target))
    (f,) = [f for f in e.value.report.findings if f.rule == "input-error"]
    assert (f.location.line, f.location.column, f.location.byte_offset) == (err["line"], err["column"], err["byte_offset"]) == (6, 20, 86)
    assert "column=20" in repr(f.location)


def test_malformed_messages_name_the_offset():
    with pytest.raises(irlint.InputError) as e:
        irlint.check(b"\x03\x02\x23\x07" + b"\0" * 30)
    assert str(e.value) == "<bytes>: malformed: instruction (opcode 0) has word count 0 at byte offset 0x14 (20) in SPIR-V module"
    with pytest.raises(irlint.InputError) as e:
        irlint.check(b"hello")
    assert e.value.message == (
        "not a shader: the input must hold a DXBC container, a SPIR-V module, LLVM bitcode or PTX text "
        "(a `.version` directive), and no shader is embedded in it; it holds text (first bytes at offset 0: 68 65 6C 6C 6F)"
    )
    with pytest.raises(irlint.InputError, match=r"^<bytes>: empty data: the input must hold"):
        irlint.check(b"")


def test_legacy_dxbc_is_skipped_not_raised():
    part = bytes([1, 2, 3, 4])
    total = 32 + 4 + 8 + len(part)
    data = (
        b"DXBC"
        + b"\x11" * 16
        + (1).to_bytes(2, "little")
        + (0).to_bytes(2, "little")
        + total.to_bytes(4, "little")
        + (1).to_bytes(4, "little")
        + (36).to_bytes(4, "little")
        + b"SHEX"
        + len(part).to_bytes(4, "little")
        + part
    )
    report = irlint.check(data, path="old.dxbc")
    assert [(f.kind, f.status, f.message) for f in report.files] == [
        ("dxbc", "skipped", "legacy DXBC (SM 4/5), not analysed")
    ]
    assert report.exit_code == 0


def test_hlsl_without_dxc_raises_the_cli_message(irlint_bin, tmp_path, monkeypatch):
    missing = tmp_path / "no-such-libdxcompiler.so"
    monkeypatch.setenv("IRLINT_DXC", str(missing))
    source = "// irlint: -T cs_6_6\n[numthreads(1,1,1)] void main() {}\n"
    target = tmp_path / "a.hlsl"
    target.write_text(source)
    env_code, cli, _ = cli_json(irlint_bin, ["check", str(target), "--format", "json"])
    assert env_code == 2
    with pytest.raises(irlint.InputError) as e:
        irlint.check(source, kind="hlsl", path=str(target))
    assert e.value.message == cli["findings"][0]["message"]
    assert e.value.message == "HLSL input needs DXC, but libdxcompiler.so could not be loaded"
    # What was searched, and how to skip instead, are the notes (as the CLI prints them).
    notes = e.value.report.findings[0].notes
    assert any(str(missing) in n for n in notes), notes
    assert any("--skip-hlsl" in n for n in notes), notes
    # Named `.hlsl`, the kind is found from the path as the CLI finds it.
    with pytest.raises(irlint.InputError):
        irlint.check(source, path="shader.hlsl")


SB = "shaders/examples/sb_stride20_pos_uv.dxil"
RULE = "structured-buffer-stride-not-cache-aligned"


def test_config_as_toml_dict_and_path_mean_the_same(irlint_bin, tmp_path):
    toml = f'[rules.{RULE}]\nlevel = "deny"\ncache-line-target = 64\n'
    cfg = tmp_path / "irlint.toml"
    cfg.write_text(toml)
    as_dict = {"rules": {RULE: {"level": "deny", "cache-line-target": 64}}}
    reports = [irlint.check(read(SB), path=SB, config=c) for c in (toml, as_dict, cfg, str(toml))]
    texts = {zero_seconds(r.to_json()) for r in reports}
    assert len(texts) == 1
    (f,) = reports[0].findings
    assert (f.level, f.values["cache_line_target"]) == ("error", 64)
    _, out, _ = run_cli(irlint_bin, ["check", SB, "--config", str(cfg), "--format", "json"])
    assert texts == {zero_seconds(out)}
    assert len(irlint.check(read(SB), config={"rules": {RULE: "allow"}})) == 0


def test_config_groups_and_both_level_spellings():
    # docs/python.md's quick start: a group (every `coopvec-*` rule) at a level.
    cv = "shaders/examples/sl_coopvec_stride_mismatch.spv"
    report = irlint.check_paths([cv], config={"rules": {"coopvec": "deny"}})
    levels = sorted((f.rule, f.level) for f in report.findings)
    assert levels == [("coopvec-non-optimal-matrix-layout", "error"), ("coopvec-stride-mismatch", "error")]
    # `irlint rules` prints error/warning/off; deny/warn/allow mean the same.
    for a, b in (("error", "deny"), ("warning", "warn"), ("off", "allow")):
        texts = {zero_seconds(irlint.check(read(cv), config={"rules": {"coopvec": lvl}}).to_json()) for lvl in (a, b)}
        assert len(texts) == 1, (a, b)
    assert len(irlint.check(read(cv), config={"rules": {"all": "off"}})) == 0
    # The rule id wins over its group, whatever the key order.
    cfg = {"rules": {"coopvec-stride-mismatch": "warning", "coopvec": "off"}}
    assert [(f.rule, f.level) for f in irlint.check(read(cv), config=cfg).findings] == [
        ("coopvec-stride-mismatch", "warning")
    ]
    with pytest.raises(irlint.ConfigError, match=r"did you mean `coopvec-stride-mismatch`\?"):
        irlint.check(read(cv), config={"rules": {"coopvec-stride-mismatchh": "deny"}})
    # The same grammar, as a function.
    assert irlint.rule_ids("coopvec-stride-mismatch") == ["coopvec-stride-mismatch"]
    assert "coopvec-non-optimal-matrix-layout" in irlint.rule_ids("coopvec")
    assert all(r.startswith("coopvec-") for r in irlint.rule_ids("coopvec"))
    assert len(irlint.rule_ids("all")) > len(irlint.rule_ids("coopvec"))
    with pytest.raises(irlint.ConfigError, match=r"^unknown rule `copvec`; did you mean `coopvec`\?$"):
        irlint.rule_ids("copvec")


def test_config_per_file_ignores_apply_to_the_path():
    cfg = {"per-file-ignores": {"shaders/**": [RULE]}}
    assert len(irlint.check(read(SB), path=SB, config=cfg)) == 0
    assert len(irlint.check(read(SB), path="elsewhere/x.dxil", config=cfg)) == 1


def test_bad_config_raises_the_cli_message(irlint_bin, tmp_path):
    cfg = tmp_path / "irlint.toml"
    cfg.write_text('[rules]\nno-such-rule = "deny"\n')
    code, out, err = run_cli(irlint_bin, ["check", SB, "--config", str(cfg)])
    assert (code, out) == (2, "")
    with pytest.raises(irlint.ConfigError) as e:
        irlint.check(read(SB), config=cfg)
    assert f"error: {e.value}\n" == err
    with pytest.raises(irlint.ConfigError) as e:
        irlint.check(read(SB), config={"rules": {RULE: {"cache-line-target": 48}}})
    assert str(e.value) == (
        f"<config dict>: invalid value 48 for `rules.{RULE}.cache-line-target`; expected one of: 16, 32, 64, 128"
    )
    with pytest.raises(irlint.ConfigError, match=r"^<config>: unknown key `colour`; expected one of: rules, hlsl"):
        irlint.check(read(SB), config="colour = 1\n")
    with pytest.raises(irlint.ConfigError, match=r"^<config dict>: `rules.x`: None has no TOML value$"):
        irlint.check(read(SB), config={"rules": {"x": None}})
    with pytest.raises(irlint.ConfigError, match="No such file"):
        irlint.check(read(SB), config=tmp_path / "missing.toml")
    good = tmp_path / "good.toml"
    good.write_text(f'[rules]\n{RULE} = "deny"\n')
    with pytest.raises(irlint.ConfigError) as e:
        irlint.check(read(SB), config=str(good))
    assert str(e.value).startswith("<config>: ")
    assert str(e.value).endswith(f"(a str config is TOML text; pass pathlib.Path({str(good)!r}) to read the file)".replace("'", '"'))
    with pytest.raises(TypeError, match="config must be a TOML string, a dict or a path"):
        irlint.check(read(SB), config=3)


def test_no_irlint_toml_is_looked_for(tmp_path, monkeypatch):
    (tmp_path / "irlint.toml").write_text(f'[rules]\n{RULE} = "allow"\n')
    monkeypatch.chdir(tmp_path)
    assert len(irlint.check(read(SB), path="x.dxil")) == 1
    # check_paths, like the CLI, uses it.
    (tmp_path / "x.dxil").write_bytes(read(SB))
    assert len(irlint.check_paths(["x.dxil"])) == 0


def test_version_is_the_crate_version():
    cargo = (ROOT / "Cargo.toml").read_text()
    assert f'version = "{irlint.__version__}"' in cargo
    assert os.path.basename(irlint._irlint.__file__).startswith("_irlint")
