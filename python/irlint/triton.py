"""Check the PTX of every kernel Triton compiles, as it is compiled.

::

    import irlint.triton
    irlint.triton.install()                 # findings become IrlintWarning warnings
    irlint.triton.install(mode="error")     # ... or raise KernelCheckError from the compile

The hook is Triton's compilation listener (``triton.knobs.compilation.listener``,
Triton 3.4 and later). ``triton.compile`` calls it after every compilation and on
every cache hit, with the paths of the stages it wrote, so it sees the PTX of each
kernel: launched through ``@triton.jit`` on a GPU, or compiled with an explicit
``GPUTarget`` on a machine without one. A listener that was installed before is
kept and called first.

Each finding is reported at the Python line of the kernel that produced the
instruction (the PTX ``.loc`` directives Triton writes), one warning per rule and
line. Notes (a suppression that hid nothing, an analysis budget) are warnings in
both modes and never raise.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import FrameType
from typing import Any

import irlint

__all__ = [
    "MIN_TRITON",
    "TESTED_TRITON",
    "IrlintWarning",
    "KernelCheckError",
    "KernelStats",
    "Stats",
    "UnsupportedTritonError",
    "install",
    "installed",
    "reset_stats",
    "stats",
    "uninstall",
]

#: The oldest Triton with ``triton.knobs.compilation.listener``.
MIN_TRITON = (3, 4)
#: Versions the test suite has run against.
TESTED_TRITON = ("3.4.0", "3.5.1", "3.6.0")

log = logging.getLogger("irlint.triton")

_MODES = ("warn", "error")
# Reported whatever rules= says: the check itself failed.
_TOOL_OUTCOMES = ("input-error", "internal-error", "analysis-budget-exceeded")
# Checked once at install so that an unknown rule id fails there, not in a compile.
_EMPTY_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n"


class IrlintWarning(UserWarning):
    """A finding of irlint in a kernel Triton compiled (or a kernel it could not check).

    ``str(w)`` is the text shown; the attributes hold the details: ``kernel``
    (the kernel's name), ``arch`` (``"sm_100"``), ``rule`` and ``level`` (None
    for a kernel not checked), ``findings`` (the :class:`irlint.Finding` objects
    on this line, one per PTX instruction), ``source_file``/``source_line`` (the
    Python line, when the PTX has line information) and ``ptx_path`` (the PTX in
    Triton's cache).
    """

    def __init__(
        self,
        text: str,
        *,
        kernel: str | None = None,
        arch: str | None = None,
        findings: Sequence[Any] = (),
        ptx_path: str | None = None,
    ):
        super().__init__(text)
        first = findings[0] if findings else None
        self.kernel = kernel
        self.arch = arch
        self.findings = list(findings)
        self.rule: str | None = first.rule if first is not None else None
        self.level: str | None = first.level if first is not None else None
        self.source_file: str | None = first.location.source_file if first is not None else None
        self.source_line: int | None = first.location.source_line if first is not None else None
        self.ptx_path = ptx_path


class KernelCheckError(irlint.IrlintError):
    """Raised from the compile in ``mode="error"`` when a kernel has findings.

    ``kernel``, ``arch``, ``ptx_path`` and ``findings`` (every warning- and
    error-level :class:`irlint.Finding` of the kernel) say what was found;
    the message lists them by Python line. The kernel is already in Triton's
    cache: the next compile of it is a cache hit, which is checked again.
    """

    def __init__(self, text: str, *, kernel: str, arch: str | None, findings: Sequence[Any], ptx_path: str | None):
        super().__init__(text)
        self.kernel = kernel
        self.arch = arch
        self.findings = list(findings)
        self.ptx_path = ptx_path


class UnsupportedTritonError(irlint.IrlintError):
    """The installed Triton has no compilation listener (before 3.4)."""


@dataclasses.dataclass(frozen=True)
class KernelStats:
    """One compile that the hook saw."""

    name: str
    arch: str | None
    cache_hit: bool
    #: Triton's own time for this compile (its ``CompileTimes.total``), seconds.
    triton_seconds: float
    #: Time in the hook: reading the PTX, checking it, reporting; seconds.
    irlint_seconds: float
    findings: int
    #: Why the kernel was not checked (no PTX among Triton's outputs), else None.
    unchecked: str | None = None


@dataclasses.dataclass(frozen=True)
class Stats:
    """What the hook did since :func:`install` (or :func:`reset_stats`)."""

    kernels: tuple[KernelStats, ...]

    def _sum(self, hits: bool) -> tuple[int, float, float]:
        ks = [k for k in self.kernels if k.cache_hit == hits and k.unchecked is None]
        return len(ks), sum(k.triton_seconds for k in ks), sum(k.irlint_seconds for k in ks)

    @property
    def compiled(self) -> int:
        """Kernels compiled (cache misses) and checked."""
        return self._sum(False)[0]

    @property
    def cache_hits(self) -> int:
        """Cache hits checked."""
        return self._sum(True)[0]

    @property
    def unchecked(self) -> int:
        """Compiles whose outputs held no PTX."""
        return sum(1 for k in self.kernels if k.unchecked is not None)

    @property
    def findings(self) -> int:
        return sum(k.findings for k in self.kernels)

    @property
    def triton_seconds(self) -> float:
        """Triton's compile time over the cache misses checked."""
        return self._sum(False)[1]

    @property
    def irlint_seconds(self) -> float:
        """The hook's time over the cache misses checked."""
        return self._sum(False)[2]

    @property
    def overhead(self) -> float:
        """The hook's time as a fraction of Triton's compile time (cache misses)."""
        _, triton_s, irlint_s = self._sum(False)
        return irlint_s / triton_s if triton_s > 0 else 0.0

    def summary(self) -> str:
        n, triton_s, irlint_s = self._sum(False)
        hits, hit_triton_s, hit_irlint_s = self._sum(True)
        text = (
            f"irlint checked {n} compiled kernel{'s' if n != 1 else ''}: "
            f"{irlint_s * 1e3:.1f} ms in irlint, {triton_s:.2f} s in Triton ({self.overhead:.2%})"
        )
        if hits:
            text += (
                f"; {hits} cache hit{'s' if hits != 1 else ''}: {hit_irlint_s * 1e3:.1f} ms in irlint, "
                f"{hit_triton_s * 1e3:.1f} ms in Triton"
            )
        if self.unchecked:
            text += f"; {self.unchecked} without PTX, not checked"
        return text + f"; {self.findings} finding{'s' if self.findings != 1 else ''}"


@dataclasses.dataclass
class _Settings:
    mode: str
    config: str | os.PathLike[str] | dict[str, Any] | None
    rules: frozenset[str] | None
    check_cache_hits: bool


class _Hook:
    """The listener installed into Triton: calls the previous one, then checks."""

    def __init__(self, previous: Callable[..., Any] | None, settings: _Settings):
        self.previous = previous
        self.settings = settings
        self.active = True

    def __call__(
        self,
        *,
        src: Any,
        metadata: Mapping[str, Any],
        metadata_group: Mapping[str, str],
        times: Any,
        cache_hit: bool,
        **rest: Any,
    ) -> None:
        if self.previous is not None:
            self.previous(
                src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit, **rest
            )
        if self.active and (self.settings.check_cache_hits or not cache_hit):
            _check_kernel(self.settings, metadata, metadata_group, times, cache_hit)


_lock = threading.Lock()
_hook: _Hook | None = None
_records: list[KernelStats] = []


def _triton_version(version: str) -> tuple[int, ...]:
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _import(name: str) -> Any:
    """An optional dependency (Triton, tomli), imported at run time only."""
    return importlib.import_module(name)


def _knobs() -> Any:
    """``triton.knobs.compilation``, or UnsupportedTritonError saying why not."""
    try:
        triton = _import("triton")
    except ImportError as e:
        raise UnsupportedTritonError(f"irlint.triton needs Triton (pip install triton): {e}") from e
    version = getattr(triton, "__version__", "unknown")
    if _triton_version(version) < MIN_TRITON:
        raise UnsupportedTritonError(
            f"irlint.triton needs Triton {MIN_TRITON[0]}.{MIN_TRITON[1]} or later "
            f"(triton.knobs.compilation.listener); this is Triton {version}"
        )
    try:
        compilation = _import("triton.knobs").compilation
    except (ImportError, AttributeError) as e:
        raise UnsupportedTritonError(f"Triton {version} has no triton.knobs.compilation: {e}") from e
    if not hasattr(compilation, "listener"):
        raise UnsupportedTritonError(f"Triton {version} has no triton.knobs.compilation.listener")
    return compilation


def _with_rules(
    config: str | os.PathLike[str] | Mapping[str, Any] | None, rules: Iterable[str] | None
) -> str | os.PathLike[str] | dict[str, Any] | None:
    """The config with every rule of ``rules`` turned on (at error level) unless
    the config sets its level itself."""
    if rules is None:
        return dict(config) if isinstance(config, Mapping) else config
    if isinstance(config, os.PathLike):
        try:
            config = open(config, encoding="utf-8").read()
        except OSError as e:
            raise irlint.ConfigError(f"{os.fspath(config)}: {e}") from e
    if isinstance(config, str):
        try:
            tomllib = _import("tomllib")
        except ImportError:  # Python < 3.11
            try:
                tomllib = _import("tomli")
            except ImportError as e:
                raise irlint.ConfigError(
                    "rules= with a TOML string config needs tomllib (Python 3.11+) or tomli; pass the config as a dict"
                ) from e
        try:
            merged: dict[str, Any] = tomllib.loads(config)
        except tomllib.TOMLDecodeError as e:
            raise irlint.ConfigError(f"<config>: {e}") from e
    else:
        merged = {k: v for k, v in (config or {}).items()}
    table = dict(merged.get("rules") or {})
    for rule in rules:
        entry = table.get(rule)
        if entry is None:
            table[rule] = "deny"
        elif isinstance(entry, Mapping) and "level" not in entry:
            table[rule] = {**entry, "level": "deny"}
    merged["rules"] = table
    return merged


def install(
    mode: str = "warn",
    rules: Sequence[str] | None = None,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    check_cache_hits: bool = True,
) -> None:
    """Checks the PTX of every kernel Triton compiles from now on.

    - ``mode="warn"``: each finding is an :class:`IrlintWarning` at the kernel's
      Python line; ``mode="error"``: a kernel with a warning or error finding
      raises :class:`KernelCheckError` out of ``triton.compile`` (or the launch
      that compiled it).
    - ``rules``: rule ids or groups (``"atom"``, ``"ptx"``, ``"all"``, as in
      ``irlint.toml``); only their findings are reported, and each is turned
      on at error level unless ``config`` sets its level.
    - ``config``: a dict, TOML text or the path of a file, with the meaning of
      ``irlint.toml`` (``{"rules": {"ptx-shared-address-misaligned": "allow"}}``).
    - ``check_cache_hits``: check kernels Triton loads from its cache too (on by
      default: a cached kernel is reported in every process that uses it).

    Installing again replaces the settings. Raises :class:`UnsupportedTritonError`
    for a Triton without a compilation listener (before 3.4), ``ValueError`` for
    a mode that is not ``"warn"`` or ``"error"``, and :class:`irlint.ConfigError`
    for an unknown rule id or a bad config.
    """
    global _hook
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(repr(m) for m in _MODES)}, not {mode!r}")
    if isinstance(rules, str):
        raise TypeError("rules must be a list of rule ids, not a string")
    rule_set = frozenset(rules) if rules is not None else None
    compilation = _knobs()
    merged = _with_rules(config, sorted(rule_set) if rule_set is not None else None)
    irlint.check(_EMPTY_PTX, kind="ptx", config=merged)  # an unknown rule id or a bad config raises here
    # Groups (`atom`) stand for their rule ids, as in the config.
    selected = frozenset(i for r in rule_set for i in irlint.rule_ids(r)) if rule_set is not None else None
    settings = _Settings(mode=mode, config=merged, rules=selected, check_cache_hits=check_cache_hits)
    with _lock:
        if _hook is not None and compilation.listener is _hook:
            _hook.settings = settings
            return
        if _hook is not None:
            _hook.active = False  # chained under a listener installed after it: passes through
        _hook = _Hook(compilation.listener, settings)
        compilation.listener = _hook
        _records.clear()


def uninstall() -> None:
    """Restores the listener that was there before :func:`install`.

    When another listener was installed on top of irlint's since, that one is
    left in place and irlint's only passes the calls on to the one before it.
    """
    global _hook
    with _lock:
        if _hook is None:
            return
        compilation = _knobs()
        if compilation.listener is _hook:
            compilation.listener = _hook.previous
        _hook.active = False
        _hook = None


def installed() -> bool:
    """Whether the hook is installed."""
    return _hook is not None


def stats() -> Stats:
    """Per-kernel timings and findings since :func:`install` or :func:`reset_stats`."""
    with _lock:
        return Stats(tuple(_records))


def reset_stats() -> None:
    with _lock:
        _records.clear()


def _arch(metadata: Mapping[str, Any]) -> str | None:
    target = metadata.get("target")
    arch = getattr(target, "arch", None)
    if arch is None and isinstance(target, Mapping):
        arch = target.get("arch")
    return f"sm_{arch}" if isinstance(arch, int) else (str(arch) if arch is not None else None)


def _ptx_path(metadata_group: Mapping[str, str]) -> str | None:
    for name, path in metadata_group.items():
        if name.endswith(".ptx"):
            return path
    return None


def _where(f: Any) -> tuple[str, int]:
    loc = f.location
    if loc.source_file and loc.source_line:
        return loc.source_file, loc.source_line
    return loc.path or "<ptx>", loc.line or 0


def _group(findings: Iterable[Any]) -> list[list[Any]]:
    """Findings by (rule, Python line, message), in PTX order: one Triton
    ``tl.dot`` becomes several MMA instructions with the same finding."""
    groups: dict[tuple[str, str, int, str], list[Any]] = {}
    for f in findings:
        file, line = _where(f)
        groups.setdefault((f.rule, file, line, f.message), []).append(f)
    return list(groups.values())


def _describe(kernel: str, arch: str | None, group: Sequence[Any], where: bool) -> str:
    """``error[RULE] in Triton kernel K (sm_100): MESSAGE [4 instructions]``,
    after ``FILE:LINE: `` when ``where`` (a warning shows its location itself)."""
    f = group[0]
    more = f" [{len(group)} instructions]" if len(group) > 1 else ""
    text = f"{f.level}[{f.rule}] in {_named(kernel, arch)}: {f.message}{more}"
    if where:
        file, line = _where(f)
        text = f"{file}:{line}: {text}"
    return text


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside irlint and Triton: the
    code that compiled or launched the kernel."""
    skip = (os.path.dirname(__file__), os.path.dirname(_import("triton").__file__))
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(skip):
        frame, level = frame.f_back, level + 1
    return level


def _named(kernel: str, arch: str | None) -> str:
    return f"Triton kernel {kernel}" + (f" ({arch})" if arch else "")


def _check_kernel(
    settings: _Settings, metadata: Mapping[str, Any], metadata_group: Mapping[str, str], times: Any, cache_hit: bool
) -> None:
    start = time.perf_counter()
    kernel = str(metadata.get("name", "?"))
    arch = _arch(metadata)
    triton_s = getattr(times, "total", 0) / 1e6
    ptx_path = _ptx_path(metadata_group)
    backend = getattr(metadata.get("target"), "backend", None)
    if ptx_path is None:
        # An AMD target has none; a CUDA one has none with TRITON_STORE_BINARY_ONLY=1.
        why = "no PTX among Triton's outputs" + (" (TRITON_STORE_BINARY_ONLY=1?)" if backend != "hip" else "")
        _record(KernelStats(kernel, arch, cache_hit, triton_s, time.perf_counter() - start, 0, why))
        if backend != "hip":
            text = f"irlint: {_named(kernel, arch)} not checked: {why}"
            warnings.warn(IrlintWarning(text, kernel=kernel, arch=arch), stacklevel=_caller_level())
        return
    try:
        with open(ptx_path, "rb") as fh:
            data = fh.read()
        report = irlint.check(data, kind="ptx", config=settings.config, path=ptx_path)
    except (OSError, irlint.IrlintError) as e:
        text = f"irlint: {_named(kernel, arch)} not checked: {e}"
        _record(KernelStats(kernel, arch, cache_hit, triton_s, time.perf_counter() - start, 0, str(e)))
        if settings.mode == "error":
            raise KernelCheckError(text, kernel=kernel, arch=arch, findings=(), ptx_path=ptx_path) from e
        warnings.warn(IrlintWarning(text, kernel=kernel, arch=arch, ptx_path=ptx_path), stacklevel=_caller_level())
        return
    findings = [
        f
        for f in report.findings
        if settings.rules is None or f.rule in settings.rules or f.rule in _TOOL_OUTCOMES
    ]
    failing = [f for f in findings if f.level in ("error", "warning")]
    raising = settings.mode == "error" and bool(failing)
    for group in _group(findings):
        if raising and group[0].level in ("error", "warning"):
            continue  # in the exception
        file, line = _where(group[0])
        w = IrlintWarning(
            _describe(kernel, arch, group, where=False), kernel=kernel, arch=arch, findings=group, ptx_path=ptx_path
        )
        warnings.warn_explicit(w, IrlintWarning, file, line)
    elapsed = time.perf_counter() - start
    _record(KernelStats(kernel, arch, cache_hit, triton_s, elapsed, len(findings)))
    log.debug(
        "checked %s in %.2f ms (Triton: %s, %.1f ms): %d finding(s)",
        _named(kernel, arch),
        elapsed * 1e3,
        "cache hit" if cache_hit else "compiled",
        triton_s * 1e3,
        len(findings),
    )
    if raising:
        lines = [_describe(kernel, arch, g, where=True) for g in _group(failing)]
        n = len(failing)
        text = (
            f"irlint: {_named(kernel, arch)} has {n} finding{'s' if n != 1 else ''} in {ptx_path}:\n  "
            + "\n  ".join(lines)
        )
        raise KernelCheckError(text, kernel=kernel, arch=arch, findings=failing, ptx_path=ptx_path)


def _record(k: KernelStats) -> None:
    with _lock:
        _records.append(k)
