"""irlint: lints compiled GPU code (DXIL, SPIR-V, PTX).

The Rust library is the one implementation; this package is its binding
(PyO3). See docs/python.md for the API and `python -m irlint --help` for the
command line.

    >>> import irlint
    >>> from pathlib import Path
    >>> report = irlint.check(Path("kernel.ptx").read_bytes(), path="kernel.ptx")
    >>> for f in report.findings:
    ...     print(f.rule, f.location.source_line, f.message)
"""

from ._irlint import (
    AtomResult,
    ConfigError,
    FileResult,
    Finding,
    InputError,
    IrlintError,
    Location,
    Report,
    __version__,
    atoms,
    check,
    check_paths,
    rule_ids,
)

__all__ = [
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
