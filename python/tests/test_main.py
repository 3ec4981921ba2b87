"""`python -m irlint` and the `irlint` command that `pip install` puts on PATH
are the command line: same arguments, output and exit status as the `irlint`
binary."""

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import ROOT, cli_env, run_cli, zero_seconds


def run_module(args, stdin=None):
    p = subprocess.run(
        [sys.executable, "-m", "irlint", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(),
    )
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["check", "shaders/examples"],
        ["check", "shaders/examples", "--format", "json"],
        ["check", "shaders/examples", "tests/fixtures/ptx", "--format", "sarif"],
        ["check", "shaders/examples", "--format", "github", "-q", "--statistics"],
        ["check", "tests/fixtures/ptx_loc/dot_scaled.ptx", "--fail-on", "error", "--exit-zero"],
        ["check", "shaders/examples", "-A", "all"],
        ["check", "missing.dxil"],
        ["check", "shaders/examples", "-A", "no-such-rule"],
        ["check"],
        ["frobnicate"],
        ["--help"],
        ["check", "--help"],
        ["--version"],
        ["-V"],
        ["rules"],
        ["rules", "--format", "json"],
        ["explain", "atom-tcgen05-kind"],
        ["explain", "no-such-rule"],
        ["atoms", "tests/data/atoms/mixed.json"],
        ["dump", "shaders/examples/sb_stride20_pos_uv.dxil"],
        ["completions", "bash"],
    ],
    ids=lambda a: " ".join(a) or "no-args",
)
def test_same_output_and_status_as_the_binary(irlint_bin, args):
    want = run_cli(irlint_bin, args)
    got = run_module(args)
    assert got[0] == want[0]
    assert zero_seconds(got[1]) == zero_seconds(want[1])
    assert got[2] == want[2]


def installed_script() -> Path:
    """The `irlint` console script of the environment the package is installed in."""
    dist = importlib.metadata.distribution("irlint")
    scripts = [e for e in dist.entry_points if e.group == "console_scripts"]
    assert [(e.name, e.value) for e in scripts] == [("irlint", "irlint.__main__:run")]
    name = "irlint.exe" if os.name == "nt" else "irlint"
    return Path(sysconfig.get_path("scripts")) / name


def test_pip_install_puts_an_irlint_command_on_path():
    script = installed_script()
    assert script.is_file(), f"no console script at {script}"


@pytest.mark.parametrize(
    "args",
    [
        ["check", "shaders/examples"],
        ["check", "shaders/examples", "--format", "json"],
        ["check", "missing.dxil"],
        ["--help"],
        ["--version"],
        ["rules"],
    ],
    ids=lambda a: " ".join(a),
)
def test_console_script_is_the_binary(irlint_bin, args):
    script = installed_script()
    p = subprocess.run([str(script), *args], cwd=ROOT, capture_output=True, text=True, env=cli_env())
    want = run_cli(irlint_bin, args)
    assert p.returncode == want[0]
    assert zero_seconds(p.stdout) == zero_seconds(want[1])
    assert p.stderr == want[2]


def test_exit_codes():
    assert run_module(["check", "shaders/examples/la_load_stride_ok.dxil"])[0] == 0
    assert run_module(["check", "shaders/examples"])[0] == 1
    assert run_module(["check", "missing.dxil"])[0] == 2
    assert run_module(["nonsense"])[0] == 2


def test_stdin(irlint_bin):
    text = (ROOT / "tests/data/atoms/mixed.json").read_text()
    code, out, err = run_module(["atoms", "-", "--format", "json"], stdin=text)
    want = run_cli(irlint_bin, ["atoms", "-", "--format", "json"], stdin=text)
    assert (code, zero_seconds(out), err) == (want[0], zero_seconds(want[1]), want[2])
    assert code == 2
    ptx = (ROOT / "tests/fixtures/ptx_desc/wgmma_desc.ptx").read_text()
    code, out, err = run_module(["check", "-", "--format", "json"], stdin=ptx)
    want = run_cli(irlint_bin, ["check", "-", "--format", "json"], stdin=ptx)
    assert (code, zero_seconds(out), err) == (want[0], zero_seconds(want[1]), want[2])
    assert code == 1
