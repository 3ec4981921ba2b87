"""Shared helpers: the repository root, the `irlint` binary the package is
compared with, and a runner for it.

The binary is `debug/irlint` under the target directory cargo reports for the
checkout (`cargo metadata`: `target/`, or `CARGO_TARGET_DIR` when that is set),
or `IRLINT_BIN`; it is built with `cargo build` once per session, so a
comparison never passes against a stale or absent binary silently.
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def target_dir() -> Path:
    """The root crate's target directory, as cargo reports it (it honours
    `CARGO_TARGET_DIR` and `.cargo/config.toml`, which a fixed `target/` would not)."""
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return Path(json.loads(out)["target_directory"])


def _binary() -> Path:
    env = os.environ.get("IRLINT_BIN")
    if env:
        return Path(env)
    exe = "irlint.exe" if os.name == "nt" else "irlint"
    return target_dir() / "debug" / exe


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
