"""Type stubs of the irlint extension module (the Rust library through PyO3)."""

import os
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Union, final

__version__: str
__all__ = [
    "__version__",
    "check",
    "check_paths",
    "atoms",
    "main",
    "rule_ids",
    "Report",
    "Finding",
    "Location",
    "FileResult",
    "AtomResult",
    "IrlintError",
    "InputError",
    "ConfigError",
]

_Kind = Literal["dxil", "spirv", "ptx", "hlsl", "bitcode", "dxbc", "binary"]
_ConfigArg = Union[str, Mapping[str, Any], "os.PathLike[str]", None]
_StrPath = Union[str, "os.PathLike[str]"]

class IrlintError(Exception):
    """Base class of the errors irlint raises."""

class InputError(IrlintError):
    """An input could not be read or is malformed (what the command line reports
    as an `input-error` and exits 2 for). `str(e)` is `"{path}: {message}"`."""

    path: str
    """The input's name in the report."""
    message: str
    """The command line's message (the JSON finding's `message`)."""
    report: "Report"
    """The whole report (`exit_code` 2)."""

class ConfigError(IrlintError):
    """A bad configuration or argument: an unknown rule, key or value, a TOML
    syntax error, an unknown `kind`, a glob that matches nothing (what makes the
    command line exit 2 before checking anything). The message is the
    command line's, naming the config and the key."""

@final
class Location:
    """Where a finding points (the JSON finding's location fields)."""

    path: str
    function: Optional[str]
    line: Optional[int]
    """1-based line of the instruction in a text input (PTX)."""
    column: Optional[int]
    """1-based column in that line (where an input error was found), when known."""
    byte_offset: Optional[int]
    """Absolute byte offset of the instruction in the input."""
    blob_offset: Optional[int]
    """Offset of the embedded shader inside the input."""
    entry: Optional[str]
    """The container entry's name, where it has one (a Fossilize module's hash,
    16 hex digits): the report shows `path@entry`."""
    section: Optional[str]
    instruction: Optional[int]
    """Instruction index in the function (body order, from 0)."""
    value: Optional[str]
    """The instruction's value as disassemblers print it (`%12`)."""
    source_file: Optional[str]
    """Source file from debug info (PTX `.loc`/`.file`, DXIL or SPIR-V debug info)."""
    source_line: Optional[int]
    source_column: Optional[int]
    source_text: Optional[str]
    """The text of the source line, when embedded in the module or read from disk."""

@final
class Finding:
    """A finding, or a tool-level outcome (`input-error`, `internal-error`,
    `analysis-budget-exceeded`, `unused-suppression`), as in the JSON report."""

    rule: str
    level: Literal["error", "warning", "note"]
    certainty: Literal["proven", "possible"]
    message: str
    help: Optional[str]
    notes: List[str]
    location: Location
    @property
    def values(self) -> Dict[str, Any]:
        """The recovered values, as JSON `values` (ints, lists of ints,
        `{"rem": r, "mod": m}`, strings)."""
    @property
    def resource(self) -> Optional[Dict[str, Any]]:
        """The resource the finding is about, as JSON `resource`."""

@final
class FileResult:
    """One entry of the report's `files`: an input, or a shader embedded in one."""

    path: str
    kind: Literal["dxil", "spirv", "dxbc", "bitcode", "hlsl", "ptx", "atoms", "binary", "missing"]
    status: Literal["ok", "skipped", "error"]
    message: Optional[str]
    blob_offset: Optional[int]
    entry: Optional[str]
    """The container entry's name, where it has one (a Fossilize module's hash)."""
    section: Optional[str]

@final
class Report:
    """The result of `check` or `check_paths`."""

    @property
    def findings(self) -> List[Finding]:
        """Findings in report order (path, blob offset, function, instruction, rule)."""
    @property
    def files(self) -> List[FileResult]: ...
    @property
    def exit_code(self) -> int:
        """What `irlint check` would exit with: 2 input errors, 1 a warning or
        error finding, 0 otherwise."""
    def to_json(self) -> str:
        """The JSON report, as `irlint check --format json` writes it."""
    def to_sarif(self) -> str:
        """SARIF 2.1.0, as `irlint check --format sarif` writes it (URIs
        relative to the working directory)."""
    def to_text(self, *, color: bool = False) -> str:
        """The human report, as `irlint check` prints it."""
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Finding]: ...

@final
class AtomResult:
    """One record's result, as an entry of `irlint atoms --format json`'s `results`."""

    index: int
    id: Any
    verifier: Optional[str]
    ok: bool
    rule: Optional[str]
    message: Optional[str]
    value: Any
    """What the verifier returned: `{"registers": n}`, `{"opcode": n}`,
    `{"elem_class", "k_size", "mn_size"}`, `{"period": n}`, `{"rank": n}`, or None."""

def check(
    data: Union[bytes, bytearray, str],
    *,
    kind: Optional[_Kind] = None,
    config: _ConfigArg = None,
    path: Optional[_StrPath] = None,
) -> Report:
    """Checks one shader held in memory, as `irlint check` checks a file named
    `path` (default `<bytes>` / `<string>`) holding `data`.

    `kind`: read the data as this kind instead of by content. `config`: TOML
    text, a dict, or a path to an `irlint.toml` (None: the defaults).
    Raises InputError when the data is malformed or holds no shader,
    ConfigError for a bad config or kind. The GIL is released while checking."""

def check_paths(
    paths: Union[_StrPath, Iterable[_StrPath]],
    jobs: Optional[int] = None,
    config: _ConfigArg = None,
) -> Report:
    """Checks files and directories as `irlint check PATH...` does (recursive,
    by content; quoted globs; `.gitignore`, `exclude`, `per-file-ignores`).
    `config` is `--config` (None: the `irlint.toml` found above each input),
    `jobs` is `-j` (None: one thread per core). Input errors are in the report
    (`exit_code` 2); raises ConfigError for a bad config or a glob that matches
    nothing. Warnings the command line prints on stderr are UserWarnings."""

def atoms(records: Union[str, Mapping[str, Any], Iterable[Mapping[str, Any]]]) -> List[AtomResult]:
    """Runs matrix-atom records (the pinned `irlint atoms` format, docs/atoms.md):
    dicts, or the text `irlint atoms` reads (a JSON array or JSON Lines). A
    malformed record is a result with rule `input-error`; raises InputError for
    text that is no JSON array, TypeError for a value JSON cannot hold and for
    bytes (decode JSON text to str first)."""

def rule_ids(selector: str) -> List[str]:
    """The rule ids a rule name stands for, as `-A`, `[rules]` and `irlint: allow(...)`
    read it: a rule id, a group (an id prefix ending at a `-`, such as `coopvec`) or
    `all`. Raises ConfigError for a name that selects nothing (suggesting the nearest)."""

def main(argv: List[str]) -> int:
    """The command line on `argv` (without the program name); returns the exit status."""
