"""Shared helpers: the repository root, the `irlint` binary the package is
compared with, and a runner for it.

The binary is `target/debug/irlint` (or `IRLINT_BIN`); when it is missing it is
built with `cargo build` once per session, so a comparison never passes
against a stale or absent binary silently.
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _binary() -> Path:
    env = os.environ.get("IRLINT_BIN")
    if env:
        return Path(env)
    return ROOT / "target" / "debug" / "irlint"


@pytest.fixture(scope="session")
def irlint_bin() -> Path:
    path = _binary()
    if not os.environ.get("IRLINT_BIN"):
        # Cheap when up to date; makes the binary match the checkout.
        subprocess.run(["cargo", "build", "--quiet", "--bin", "irlint"], cwd=ROOT, check=True)
    assert path.is_file(), f"no irlint binary at {path}"
    return path


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Every test runs from the repository root, as the CLI comparisons do."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def cli_env() -> dict:
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    env["NO_COLOR"] = "1"
    return env


def run_cli(binary, args, stdin=None, cwd=ROOT):
    """(exit code, stdout, stderr) of the binary."""
    p = subprocess.run(
        [str(binary), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(),
    )
    return p.returncode, p.stdout, p.stderr


_SECONDS = re.compile(r'("seconds": )[0-9.eE+-]+')


def zero_seconds(text: str) -> str:
    """The JSON report with its one varying figure (the run's seconds) zeroed."""
    return _SECONDS.sub(r"\g<1>0", text)


def cli_json(binary, args):
    code, out, err = run_cli(binary, args)
    return code, json.loads(out), out
