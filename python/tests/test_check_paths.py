"""irlint.check_paths: the walk, globs, configs and input errors of
`irlint check PATH...`, with the same report as the binary."""

import os
import shutil
import warnings
from pathlib import Path

import pytest

import irlint
from conftest import ROOT, cli_json, run_cli, zero_seconds


def copy_compiled_examples(dest):
    """The compiled examples alone: not their HLSL sources (which need DXC) nor
    their irlint.toml (the nearest config wins, and these tests bring their own)."""
    shutil.copytree(ROOT / "shaders/examples", dest, ignore=shutil.ignore_patterns("*.hlsl", "irlint.toml"))


@pytest.mark.parametrize(
    "paths",
    [
        ["shaders/examples"],
        ["tests/fixtures/ptx", "tests/fixtures/ptx_desc"],
        ["shaders/examples/*.spv", "tests/fixtures/ptx_loc/dot_scaled.ptx"],
        ["tests/fixtures/fatbin", "tests/fixtures/fossilize"],
    ],
)
def test_report_is_the_cli_report(irlint_bin, paths):
    report = irlint.check_paths(paths)
    code, out, _ = run_cli(irlint_bin, ["check", *paths, "--format", "json", "--no-progress"])
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert report.exit_code == code
    _, sarif, _ = run_cli(irlint_bin, ["check", *paths, "--format", "sarif"])
    assert report.to_sarif() == sarif
    _, text, _ = run_cli(irlint_bin, ["check", *paths, "--no-progress"])
    assert report.to_text() == text


def test_examples_findings():
    report = irlint.check_paths("shaders/examples")
    assert report.exit_code == 1
    assert [(f.rule, f.location.path) for f in report] == [
        ("coopvec-stride-mismatch", "shaders/examples/la_load_stride_mismatch.g.dxil"),
        ("long-vector-bytebuf-load-misaligned", "shaders/examples/lv_load_computed_misaligned.dxil"),
        ("long-vector-bytebuf-load-misaligned", "shaders/examples/lv_load_misaligned_const.g.dxil"),
        ("structured-buffer-stride-not-cache-aligned", "shaders/examples/sb_stride20_pos_uv.dxil"),
        ("structured-buffer-stride-not-cache-aligned", "shaders/examples/sb_stride48_rw.spv"),
        ("coopvec-stride-mismatch", "shaders/examples/sl_coopvec_stride_mismatch.spv"),
    ]
    assert len(report.files) == 8
    assert all(f.status == "ok" for f in report.files)


def test_fatbin_and_fossilize_entries_name_the_container():
    report = irlint.check_paths(["tests/fixtures/fatbin/libk.so", "tests/fixtures/fossilize/sb.foz"])
    assert [(f.rule, f.location.path, f.location.blob_offset, f.location.entry, f.location.section, f.location.line)
            for f in report] == [
        ("ptx-shared-address-misaligned", "tests/fixtures/fatbin/libk.so", 0x2028, None,
         ".nv_fatbin: PTX compute_80, zstd", 37),
        ("ptx-shared-address-misaligned", "tests/fixtures/fatbin/libk.so", 0x2200, None,
         ".nv_fatbin: PTX compute_90, zstd", 37),
        # A Fossilize module is named by its hash (sb.foz@005b1d4800c0ffee); the offset is its entry's.
        ("structured-buffer-stride-not-cache-aligned", "tests/fixtures/fossilize/sb.foz", 0xA0, "005b1d4800c0ffee",
         "SPIR-V module (compute main)", None),
        ("structured-buffer-stride-not-cache-aligned", "tests/fixtures/fossilize/sb.foz", 0x2CC, "5b1d3d0000000002",
         "SPIR-V module (fragment main)", None),
    ]
    assert [(f.blob_offset, f.entry) for f in report.files if f.path.endswith(".foz") and f.blob_offset] == [
        (0xA0, "005b1d4800c0ffee"), (0x2CC, "5b1d3d0000000002"),
    ]
    skipped = [(f.section, f.message) for f in report.files if f.status == "skipped"]
    assert skipped == []
    sass = irlint.check_paths("tests/fixtures/fatbin/k.sass.fatbin")
    assert [(f.section, f.message) for f in sass.files if f.status == "skipped"] == [
        ("fatbin: SASS sm_80", "SASS (cubin) for sm_80, not analysed: irlint reads PTX"),
        ("fatbin: SASS sm_90", "SASS (cubin) for sm_90, not analysed: irlint reads PTX"),
    ]


def test_jobs_do_not_change_the_report(irlint_bin):
    paths = ["shaders/examples", "tests/fixtures/ptx_desc"]
    one = irlint.check_paths(paths, jobs=1)
    two = irlint.check_paths(paths, jobs=2)
    assert zero_seconds(one.to_json()) == zero_seconds(two.to_json())
    _, cli, _ = cli_json(irlint_bin, ["check", *paths, "--format", "json", "-j", "1"])
    assert len(one) == len(cli["findings"]) > 40


def test_input_errors_are_reported_not_raised(irlint_bin):
    paths = ["tests/fixtures/ptx", "missing.spv"]
    report = irlint.check_paths(paths)
    _, cli, out = cli_json(irlint_bin, ["check", *paths, "--format", "json"])
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert report.exit_code == 2
    errors = [(f.path, f.status, f.message) for f in report.files if f.status == "error"]
    assert errors == [
        ("missing.spv", "error", "cannot read: No such file or directory (os error 2)"),
        (
            "tests/fixtures/ptx/bad_operand.ptx",
            "error",
            "malformed: line 8, column 20: expected ',' or ';', found '%r3' at byte offset 0x6c (108) in PTX module",
        ),
    ]
    assert [f.rule for f in report if f.rule == "input-error"] == ["input-error", "input-error"]


def test_no_input_warns_as_the_cli_warns(irlint_bin, tmp_path):
    code, out, err = run_cli(irlint_bin, ["check", str(tmp_path)])
    with pytest.warns(UserWarning) as caught:
        report = irlint.check_paths([tmp_path])
    assert [str(w.message) for w in caught] == [err.removeprefix("warning: ").rstrip("\n")]
    assert (report.exit_code, len(report), report.files) == (code, 0, [])


def test_clean_run_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        irlint.check_paths(["shaders/examples/la_load_stride_ok.dxil"])


def test_usage_errors_raise_the_cli_message(irlint_bin):
    code, _, err = run_cli(irlint_bin, ["check", "nowhere/*.spv"])
    assert code == 2
    with pytest.raises(irlint.ConfigError) as e:
        irlint.check_paths(["nowhere/*.spv"])
    assert f"error: {e.value}\n" == err
    assert str(e.value) == 'no file matches "nowhere/*.spv"'
    with pytest.raises(irlint.ConfigError, match="at least one path"):
        irlint.check_paths([])


def test_config_file_exclude_and_per_file_ignores(irlint_bin, tmp_path, monkeypatch):
    copy_compiled_examples(tmp_path / "shaders")
    cfg = tmp_path / "lint.toml"
    cfg.write_text(
        'exclude = ["*.spv"]\n'
        "[per-file-ignores]\n"
        '"shaders/lv_*" = ["long-vector"]\n'
        "[rules]\n"
        'coopvec-stride-mismatch = "warn"\n'
    )
    monkeypatch.chdir(tmp_path)
    report = irlint.check_paths(["shaders"], config=cfg)
    code, out, _ = run_cli(irlint_bin, ["check", "shaders", "--config", str(cfg), "--format", "json"], cwd=tmp_path)
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert code == report.exit_code == 1
    assert [(f.rule, f.level, f.location.path) for f in report] == [
        ("coopvec-stride-mismatch", "warning", "shaders/la_load_stride_mismatch.g.dxil"),
        ("structured-buffer-stride-not-cache-aligned", "warning", "shaders/sb_stride20_pos_uv.dxil"),
    ]
    assert not any(f.path.endswith(".spv") for f in report.files)
    # The same config as text or as a dict: globs relative to the working directory.
    text = cfg.read_text()
    as_dict = {
        "exclude": ["*.spv"],
        "per-file-ignores": {"shaders/lv_*": ["long-vector"]},
        "rules": {"coopvec-stride-mismatch": "warn"},
    }
    for c in (text, as_dict):
        assert zero_seconds(irlint.check_paths(["shaders"], config=c).to_json()) == zero_seconds(out)


def test_irlint_toml_is_found_above_inputs(tmp_path, monkeypatch):
    copy_compiled_examples(tmp_path / "shaders")
    (tmp_path / "irlint.toml").write_text('[rules]\nstructured-buffer-stride-not-cache-aligned = "deny"\n')
    monkeypatch.chdir(tmp_path)
    report = irlint.check_paths(["shaders"])
    levels = {f.rule: f.level for f in report}
    assert levels["structured-buffer-stride-not-cache-aligned"] == "error"
    assert levels["coopvec-stride-mismatch"] == "error"
    assert levels["long-vector-bytebuf-load-misaligned"] == "warning"


def shared_dir() -> Path:
    """../shared (or IRLINT_SHARED): the corpus. Absent, the test skips
    visibly, or fails under IRLINT_REQUIRE_SHARED (as CI sets it)."""
    d = Path(os.environ.get("IRLINT_SHARED", ROOT.parent / "shared"))
    if not (d / "corpus").is_dir():
        if os.environ.get("IRLINT_REQUIRE_SHARED"):
            pytest.fail(f"IRLINT_REQUIRE_SHARED is set but {d}/corpus is missing")
        pytest.skip(f"SKIPPED: no shared corpus at {d} (set IRLINT_SHARED)")
    return d


def test_triton_corpus_is_the_cli_report(irlint_bin):
    """Real Triton 3.6 PTX (matmuls for sm_80 to sm_120): the same report from
    Python and the binary, file by file and as one walk."""
    corpus = shared_dir() / "corpus" / "ptx" / "triton-3.6"
    files = sorted(corpus.glob("*.ptx"))
    assert len(files) >= 60
    report = irlint.check_paths([corpus], jobs=2)
    code, out, _ = run_cli(irlint_bin, ["check", str(corpus), "--format", "json"])
    assert zero_seconds(report.to_json()) == zero_seconds(out)
    assert report.exit_code == code
    assert sum(1 for f in report.files if f.kind == "ptx" and f.status == "ok") == len(files)
    for f in files[:8]:
        one = irlint.check(f.read_text(), path=str(f))
        _, out, _ = run_cli(irlint_bin, ["check", str(f), "--format", "json"])
        assert zero_seconds(one.to_json()) == zero_seconds(out)
