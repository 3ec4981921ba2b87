"""The type stubs (`_irlint.pyi`) match the extension at run time, and the
package is marked typed."""

import subprocess
import sys
from pathlib import Path

import irlint


def test_stubtest_finds_no_difference():
    p = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "irlint"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Success: no issues found" in p.stdout


def test_package_ships_stubs_and_py_typed():
    pkg = Path(irlint.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_irlint.pyi").is_file()
    assert sorted(irlint.__all__) == sorted(
        [
            "AtomResult",
            "ConfigError",
            "FileResult",
            "Finding",
            "InputError",
            "IrlintError",
            "Location",
            "Report",
            "__version__",
            "atoms",
            "check",
            "check_paths",
            "rule_ids",
        ]
    )
    assert issubclass(irlint.InputError, irlint.IrlintError)
    assert issubclass(irlint.ConfigError, irlint.IrlintError)
    assert irlint.InputError.__module__ == "irlint"
